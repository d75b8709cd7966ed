/**
 * The lock-file rule of the gateway's state dir and the mail watcher (src/host-contract/pid-lock.ts):
 * held while its owner runs, taken over once the owner is gone — also when its pid now belongs to
 * another process (after a power cut, a reboot or a container restart).
 */
import fs from "node:fs";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { processStamp, takePidLock } from "../../src/host-contract/pid-lock";
import { tempDir } from "../helpers/temp-dir";

const hasProc = fs.existsSync("/proc/self/stat");

describe("takePidLock", () => {
  let tmp: ReturnType<typeof tempDir>;
  let file: string;
  let other: ChildProcess;

  beforeEach(() => {
    tmp = tempDir("iw-pid-lock-");
    file = path.join(tmp.dir, "gateway.lock");
    // Another live process, standing for whatever holds a reused pid.
    other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  });
  afterEach(() => {
    other.kill("SIGKILL");
    tmp.remove();
  });

  it("writes this process's pid and start stamp, and removes the file on release", () => {
    const got = takePidLock(file, "take");
    if (!("lock" in got)) throw new Error(`not taken: ${JSON.stringify(got)}`);
    expect(fs.readFileSync(file, "utf8")).toBe(`${process.pid}\n${processStamp(process.pid) ?? ""}\n`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    got.lock.release();
    expect(fs.existsSync(file)).toBe(false);
  });

  it("answers the owner while the process that wrote the lock runs", () => {
    fs.writeFileSync(file, `${other.pid}\n${processStamp(other.pid!) ?? ""}\n`);
    expect(takePidLock(file, "take")).toEqual({ owner: other.pid });
    expect(fs.readFileSync(file, "utf8").split("\n")[0]).toBe(String(other.pid));
  });

  it("takes over a lock whose process is gone (kill -9)", async () => {
    const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await new Promise((r) => dead.on("exit", r));
    fs.writeFileSync(file, `${dead.pid}\n\n`);
    expect("lock" in takePidLock(file, "take")).toBe(true);
  });

  (hasProc ? it : it.skip)(
    "takes over a lock from before a reboot whose pid now belongs to another process (was: the pid alone kept the stale lock and refused every start)",
    () => {
      fs.writeFileSync(file, `${other.pid}\nan-earlier-boot/12345\n`);
      const got = takePidLock(file, "take");
      expect("lock" in got).toBe(true);
      expect(fs.readFileSync(file, "utf8").split("\n")[0]).toBe(String(process.pid));
    },
  );

  it("keeps a lock without a stamp (written where none is known) while its pid is alive", () => {
    fs.writeFileSync(file, `${other.pid}\n`);
    expect(takePidLock(file, "take")).toEqual({ owner: other.pid });
  });

  it("a lock this process holds is taken again with 'take' and refused with 'held'", () => {
    const first = takePidLock(file, "held");
    expect("lock" in first).toBe(true);
    expect(takePidLock(file, "held")).toEqual({ owner: process.pid });
    expect("lock" in takePidLock(file, "take")).toBe(true);
  });

  it("takes over a lock file that holds no pid (garbage)", () => {
    fs.writeFileSync(file, "not a pid\n");
    expect("lock" in takePidLock(file, "take")).toBe(true);
  });
});
