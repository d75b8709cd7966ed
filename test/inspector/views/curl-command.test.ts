/**
 * "Copy as curl": the stored request again — the hook token as the one variable, at the
 * places the hooks read it; every other byte the sender chose taken literally by bash,
 * and pasted as printable ASCII only.
 */
import { execFileSync } from "node:child_process";
import { curlCommand, HOOK_TOKEN_VARIABLE } from "../../../src/inspector/views/curl-command";
import type { DeliveryDetail } from "../../../src/core/inspection";
import { delivery } from "../../helpers/fake-inspector";

const T = `"\${HOOK_TOKEN:?export HOOK_TOKEN first}"`;
const join = (lines: string[]): string => lines.join(" \\\n  ");

/** Runs the command with `curl` replaced by a printf of each word (NUL-terminated) in bash: the words as bytes. */
function words(d: DeliveryDetail, env: Record<string, string> = { HOOK_TOKEN: "tok" }): Buffer[] {
  const command = curlCommand(d, "http://h");
  expect(command.startsWith("curl ")).toBe(true);
  const out = execFileSync("bash", ["--norc", "--noprofile", "-c", `set -u\n${command.replace(/^curl /, "printf '%s\\0' ")}`], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
  });
  const parts: Buffer[] = [];
  for (let at = 0, nul = out.indexOf(0); nul !== -1; at = nul + 1, nul = out.indexOf(0, at)) parts.push(out.subarray(at, nul));
  return parts;
}

/** What a paste may hold: printable ASCII, and line feeds only as the command's own ` \` continuations. */
function expectPasteSafe(command: string): void {
  expect(command).toMatch(/^[\x20-\x7e\n]*$/);
  expect(command.split("\n").every((line, i, all) => i === all.length - 1 || line.endsWith(" \\"))).toBe(true);
}

/** A deterministic pseudo-random generator (the inputs are the same on every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe("curlCommand", () => {
  it("sends the hook token where the hooks read it, every other [REDACTED] as text, leaves out connection headers, and the body as stored", () => {
    const d = delivery({
      url: "/hooks/github?token=[REDACTED]&x=1",
      headers: {
        authorization: "[REDACTED]",
        "x-service-token": "[REDACTED]",
        "x-hub-signature-256": "[REDACTED]",
        "content-type": "application/json",
        host: "gw:1",
        "content-length": "9",
      },
      body: '{"ref":"main"}',
    });
    expect(curlCommand(d, "http://127.0.0.1:18789")).toBe(
      join([
        `curl -X POST 'http://127.0.0.1:18789/hooks/github?token='${T}'&x=1'`,
        `-H 'authorization: Bearer '${T}`,
        `-H 'content-type: application/json'`,
        `-H 'x-hub-signature-256: [REDACTED]'`,
        `-H 'x-service-token: '${T}`,
        `--data-binary '{"ref":"main"}'`,
      ]),
    );
    expect(HOOK_TOKEN_VARIABLE).toBe("HOOK_TOKEN");
  });

  it("HOOK_TOKEN unset: the shell refuses the command and names the variable (nothing is sent without the token)", () => {
    const command = curlCommand(delivery({ headers: { authorization: "[REDACTED]" }, body: "{}" }), "http://h").replace(/^curl /, "printf '%s\\0' ");
    let stderr = "";
    try {
      execFileSync("bash", ["--norc", "--noprofile", "-c", command], { env: { PATH: process.env.PATH ?? "" }, stdio: "pipe" });
    } catch (err) {
      stderr = String((err as { stderr: Buffer }).stderr);
    }
    expect(stderr).toContain("HOOK_TOKEN: export HOOK_TOKEN first");
  });

  it("the hook token's query parameter as URLSearchParams reads it (%74oken), and no other name", () => {
    const d = delivery({ url: "/hooks/x?%74oken=[REDACTED]&xtoken=[REDACTED]&token=real", headers: {}, body: undefined });
    expect(words(d).map(String)).toEqual(["-X", "POST", "http://h/hooks/x?%74oken=tok&xtoken=[REDACTED]&token=real"]);
  });

  it("an absolute-form request target is sent to the page's origin (its path and query only)", () => {
    const d = delivery({ url: "http://[REDACTED]@elsewhere.example:81/hooks/x?token=[REDACTED]", headers: {}, body: undefined });
    expect(words(d).map(String)).toEqual(["-X", "POST", "http://h/hooks/x?token=tok"]);
  });

  it("a TAB, control bytes, latin1 and UTF-8 are $'…' escapes: the paste is printable ASCII, and bash makes the stored bytes of them", () => {
    const d = delivery({
      url: "/hooks/x?q=caf\u00e9\t",
      headers: { "x-note": "a\tb\u00e9\u00ff'\\" },
      body: '{"t":"\t","c":"\u0001\u0015\u001b[201~\u007f\u0085\r\n","u":"caf\u00e9 \u65e5\u672c \ud83d\ude00","q":"it\'s \\\\ !! $HOME"}',
    });
    const command = curlCommand(d, "http://h");
    expectPasteSafe(command);
    expect(command).toContain(`-H $'x-note: a\\tb\\xe9\\xff\\x27\\\\'`);
    expect(words(d)).toEqual([
      Buffer.from("-X"),
      Buffer.from("POST"),
      Buffer.from("http://h/hooks/x?q=caf\u00e9\t", "latin1"),
      Buffer.from("-H"),
      Buffer.from("x-note: a\tb\u00e9\u00ff'\\", "latin1"),
      Buffer.from("--data-binary"),
      Buffer.from(d.body!, "utf8"),
    ]);
  });

  it("any bytes in headers, URL and body (200 random requests): paste-safe, and each word arrives byte for byte", () => {
    const next = random(35);
    const text = (n: number, max: number) => Array.from({ length: n }, () => String.fromCharCode(1 + Math.floor(next() * max))).join("");
    for (let i = 0; i < 200; i++) {
      const value = text(12, 0xff).replace(/[^\t\x20-\x7e\x80-\xff]/g, "\t"); // what node accepts in a header value
      const body = text(24, 0x3000).replace(/[\ud800-\udfff]/g, "x") + (i % 3 === 0 ? "[REDACTED]" : "");
      const d = delivery({ url: `/hooks/x?note=${text(6, 0xff).replace(/[\s#]/g, "_")}`, headers: { "x-v": value }, body });
      expectPasteSafe(curlCommand(d, "http://h"));
      expect(words(d)).toEqual([
        Buffer.from("-X"),
        Buffer.from("POST"),
        Buffer.from(`http://h${d.url}`, "latin1"),
        Buffer.from("-H"),
        Buffer.from(`x-v: ${value}`, "latin1"),
        Buffer.from("--data-binary"),
        Buffer.from(body, "utf8"),
      ]);
    }
  });

  it("a body that is not UTF-8 is $'…' escapes; one holding a NUL, or of more than 64 KiB, is piped from its base64", () => {
    const latin1 = delivery({ headers: {}, body: undefined, bodyBase64: Buffer.from("caf\u00e9\t", "latin1").toString("base64") });
    expect(curlCommand(latin1, "http://h")).toBe(join([`curl -X POST 'http://h/hooks/github'`, `--data-binary $'caf\\xe9\\t'`]));
    const nul = delivery({ headers: {}, body: undefined, bodyBase64: "//4A" });
    expect(curlCommand(nul, "http://h")).toBe(`printf %s '//4A' | base64 -d | ${join([`curl -X POST 'http://h/hooks/github'`, "--data-binary @-"])}`);
    for (const body of ["a\u0000b\tc\u00e9", "\u00e9".repeat(40_000)]) {
      const command = curlCommand(delivery({ headers: {}, body }), "http://h");
      expectPasteSafe(command);
      expect(command).toMatch(/--data-binary @-$/);
      const sent = execFileSync("bash", ["--norc", "--noprofile", "-c", command.replace(/curl -X POST .*$/s, "cat")]);
      expect(sent.equals(Buffer.from(body, "utf8"))).toBe(true);
    }
  });

  it("an empty body is an empty word; an unusual method is quoted", () => {
    expect(curlCommand(delivery({ method: "PATCH", headers: {}, body: "" }), "http://h")).toBe(
      join([`curl -X PATCH 'http://h/hooks/github'`, `--data-binary ''`]),
    );
    expect(curlCommand(delivery({ method: "M-SEARCH", headers: {}, body: undefined }), "http://h")).toBe(`curl -X 'M-SEARCH' 'http://h/hooks/github'`);
  });
});
