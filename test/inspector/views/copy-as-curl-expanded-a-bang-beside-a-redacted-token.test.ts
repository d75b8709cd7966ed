/**
 * Regression: "Copy as curl" double-quoted every word holding `[REDACTED]` (the URL
 * with `?token=`, the Authorization header), so pasted into an interactive bash a `!`
 * in that word was a history expansion ("event not found": the command did not run)
 * and a `$` or backquote expanded. Now only the hook token's expansion is in double
 * quotes; every byte the sender chose is single-quoted (a `[REDACTED]` of a header that
 * is not the hook token's carrier included: it is sent as that text). Checked by bash's
 * own parser: each word of the command arrives byte for byte, non-interactive and
 * interactive (where history expansion is on).
 */
import { execFileSync } from "node:child_process";
import { curlCommand } from "../../../src/inspector/views/curl-command";
import { delivery } from "../../helpers/fake-inspector";

const nasty = `a!b!!c$(echo no)\`echo no\`$HOME'q"\\`;
const d = delivery({
  url: `/hooks/gh!x?token=[REDACTED]&note=${nasty}`,
  headers: { authorization: "[REDACTED]", "x-sig": `v1=[REDACTED]!${nasty}[REDACTED]` },
  body: nasty,
});
const expected = [
  "-X",
  "POST",
  `http://h/hooks/gh!x?token=tok&note=${nasty}`,
  "-H",
  "authorization: Bearer tok",
  "-H",
  `x-sig: v1=[REDACTED]!${nasty}[REDACTED]`,
  "--data-binary",
  nasty,
];
/** The command with `curl` replaced by a printf of each word, NUL-terminated. */
const printing = curlCommand(d, "http://h").replace(/^curl /, "printf '%s\\0' ");
const env = { HOOK_TOKEN: "tok", X_SIG: "sig", HOME: "/home/x", PATH: process.env.PATH, HISTFILE: "/dev/null" };
const words = (out: string): string[] => out.split("\0").slice(0, -1);

describe("Copy as curl pasted into bash", () => {
  it("each word arrives byte for byte; only the placeholders expand (bash -c)", () => {
    expect(words(execFileSync("bash", ["--norc", "--noprofile", "-c", printing], { encoding: "utf8", env }))).toEqual(expected);
  });

  it("an interactive bash (history expansion on) takes it literally too", () => {
    const out = execFileSync("bash", ["--norc", "--noprofile", "-i"], {
      input: `set -H\n${printing}\n`,
      encoding: "utf8",
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    expect(words(out)).toEqual(expected);
  });
});
