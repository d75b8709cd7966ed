/**
 * Regression: "Copy as curl" put a body's control characters into the command as they
 * were. Quotes do not protect against them: a terminal's line editor acts on them as the
 * paste arrives, before the shell parses anything. A sender's body holding Ctrl-U
 * (`{"note":"\u0015; touch pwned #"}`) erased the line being pasted, so the rest of the
 * body ran as a command of its own in the operator's shell. A control character is now a
 * `$'…'` escape, and this body, which holds a NUL (no argument can), is piped from its
 * base64 (curl-command.test.ts has the `$'…'` cases).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { curlCommand } from "../../../src/inspector/views/curl-command";
import { delivery } from "../../helpers/fake-inspector";
import { pasteIntoBash } from "../../helpers/paste-into-bash";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "curl-paste-"));
const marker = path.join(dir, "pwned");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.each([
  ["with a NUL (piped from its base64)", `{"note":"\u0015; touch ${marker} #","crlf":"a\r\nb","esc":"\u001b[201~","nul":"\u0000"}`],
  ["without a NUL ($'…' escapes)", `{"note":"\u0015; touch ${marker} #","crlf":"a\r\nb","esc":"\u001b[201~","c1":"\u009b"}`],
])("Copy as curl with control characters in the body, %s", (_what, body) => {
  const command = curlCommand(delivery({ headers: { "content-type": "application/json" }, body }), "http://127.0.0.1:1");

  it("the command holds no character a terminal acts on, and still sends the body byte for byte", () => {
    expect(command).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const printing = command.includes("--data-binary @-")
      ? command.replace(/curl -X POST .*$/s, "cat")
      : command.replace(/^curl .*--data-binary /s, "printf %s ");
    const sent = execFileSync("bash", ["--norc", "--noprofile", "-c", printing]);
    expect(sent.equals(Buffer.from(body, "utf8"))).toBe(true);
  });

  it("pasted into an interactive bash (bracketed paste off), nothing of the body runs", () => {
    const result = pasteIntoBash(command.replace("curl -X", "true -X"), { cwd: dir });
    expect(result.finished).toBe(true);
    expect(fs.existsSync(marker)).toBe(false);
  });
});
