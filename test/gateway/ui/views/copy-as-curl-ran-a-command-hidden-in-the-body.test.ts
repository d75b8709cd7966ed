/**
 * Regression: "Copy as curl" put a body's control characters into the command as they
 * were. Quotes do not protect against them: a terminal's line editor acts on them as the
 * paste arrives, before the shell parses anything. A sender's body holding Ctrl-U
 * (`{"note":"\u0015; touch pwned #"}`) erased the line being pasted, so the rest of the
 * body ran as a command of its own in the operator's shell. A body holding a control
 * character (C0 but tab and line feed, DEL, C1) is now piped from its base64.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { curlCommand } from "../../../../src/gateway/ui/views/curl-command";
import { delivery } from "../../../helpers/fake-inspector";

/** Types `text` into an interactive bash on a pseudo-terminal (bracketed paste off, as in many shells), then exits. */
const PASTE = `
import os, pty, select, sys, time
text = sys.stdin.buffer.read()
pid, fd = pty.fork()
if pid == 0:
    os.execve("/bin/bash", ["bash", "--norc", "--noprofile", "-i"], {"PATH": "/usr/bin:/bin", "TERM": "dumb", "INPUTRC": "/dev/null", "HISTFILE": "/dev/null", "PS1": "$ "})
def drain(seconds):
    end = time.time() + seconds
    while time.time() < end:
        if select.select([fd], [], [], 0.05)[0]:
            try: os.read(fd, 65536)
            except OSError: return
drain(0.5)
for line in [b"bind 'set enable-bracketed-paste off'\\n", text + b"\\n", b"exit\\n"]:
    os.write(fd, line)
    drain(1.0)
`;

function hasPython(): boolean {
  try {
    execFileSync("python3", ["-c", "import pty"], { stdio: "ignore" });
    return fs.existsSync("/bin/bash");
  } catch {
    return false;
  }
}

describe("Copy as curl with control characters in the body", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "curl-paste-"));
  const marker = path.join(dir, "pwned");
  const body = `{"note":"\u0015; touch ${marker} #","crlf":"a\r\nb","esc":"\u001b[201~","nul":"\u0000"}`;
  const command = curlCommand(delivery({ headers: { "content-type": "application/json" }, body }), "http://127.0.0.1:1");
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("the command holds no character a terminal acts on, and still sends the body byte for byte", () => {
    expect(command).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const sent = execFileSync("sh", ["-c", command.replace(/curl -X POST .*$/s, "cat")]);
    expect(sent.equals(Buffer.from(body, "utf8"))).toBe(true);
  });

  (hasPython() ? it : it.skip)("pasted into an interactive bash, nothing of the body runs", () => {
    execFileSync("python3", ["-c", PASTE], { input: command.replace("curl -X", "true -X"), timeout: 10_000 });
    expect(fs.existsSync(marker)).toBe(false);
  });
});
