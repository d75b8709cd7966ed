/**
 * Pastes text into a real interactive bash on a pseudo-terminal, as a terminal without
 * bracketed paste does: the bytes arrive as if typed, so bash's line editor (readline)
 * acts on each of them — a TAB completes, Ctrl-U erases the line, a byte ≥ 0x80 is a
 * Meta key in the C locale. Driven by python3's pty module (node has no pty of its
 * own): bash --norc --noprofile -i, `bind 'set enable-bracketed-paste off'`, history
 * expansion on (`set -H`, as in an interactive bash), then the paste and a line feed,
 * then an `echo` of a marker that only prints once the pasted command has finished
 * and the shell reads commands again (not inside a quote the paste left open).
 */
import { execFileSync } from "node:child_process";

const DRIVER = `
import json, os, pty, select, sys, time
env = json.loads(sys.argv[1])
cwd = sys.argv[2]
text = sys.stdin.buffer.read()
pid, fd = pty.fork()
if pid == 0:
    os.chdir(cwd)
    os.execve("/bin/bash", ["bash", "--norc", "--noprofile", "-i"], env)
os.set_blocking(fd, False)
out = bytearray()
def pump(data, marker, seconds):
    end = time.time() + seconds
    while time.time() < end:
        r, w, _ = select.select([fd], [fd] if data else [], [], 0.05)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            out.extend(chunk)
        if w and data:
            try:
                data = data[os.write(fd, data[:512]):]
            except BlockingIOError:
                pass
        if not data and marker is not None and marker in out:
            return True
    return marker is None
ok = pump(b"bind 'set enable-bracketed-paste off'; set -H; echo READY$((6*7))\\n", b"READY42", 10)
finished = ok and pump(text + b"\\necho PASTE-DONE$((6*7))\\n", b"PASTE-DONE42", float(sys.argv[3]))
if not finished:
    pump(b"\\x03\\x03", None, 0.5)
pump(b"\\nexit\\n", None, 1)
try:
    os.kill(pid, 9)
except OSError:
    pass
os.waitpid(pid, 0)
sys.stdout.buffer.write(json.dumps({"finished": finished, "screen": out.decode("latin-1")}).encode())
`;

export interface PasteResult {
  /** True when the shell read commands again after the pasted command ran. */
  finished: boolean;
  /** Everything the terminal showed (for a failure's message). */
  screen: string;
}

/**
 * Pastes `text` into an interactive bash started in `cwd` with `env` (PATH, TERM=dumb,
 * INPUTRC and HISTFILE /dev/null, the C locale and a plain prompt are set unless given).
 */
export function pasteIntoBash(text: string, opts: { cwd: string; env?: Record<string, string>; timeoutSeconds?: number }): PasteResult {
  const env = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    TERM: "dumb",
    INPUTRC: "/dev/null",
    HISTFILE: "/dev/null",
    HOME: opts.cwd,
    LANG: "C",
    LC_ALL: "C",
    PS1: "$ ",
    ...opts.env,
  };
  const timeout = opts.timeoutSeconds ?? 20;
  const out = execFileSync("python3", ["-c", DRIVER, JSON.stringify(env), opts.cwd, String(timeout)], {
    input: Buffer.from(text, "utf8"),
    timeout: (timeout + 15) * 1000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.toString("utf8")) as PasteResult;
}
