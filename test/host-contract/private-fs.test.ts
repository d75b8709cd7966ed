import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { mkdirPrivate, openToOthersWarning, touchPrivate } from "../../src/host-contract/private-fs";

const posixOnly = process.platform === "win32" ? it.skip : it;
const modeOf = (p: string): number => fs.statSync(p).mode & 0o777;

describe("private state files", () => {
  let root: string;
  let umask: number;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "private-fs-"));
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
    fs.rmSync(root, { recursive: true, force: true });
  });

  posixOnly("new nested state dirs were created 0755 under the umask: each one created is now 0700", () => {
    const dir = path.join(root, "a", "b", "c");
    mkdirPrivate(dir);
    for (const d of [path.join(root, "a"), path.join(root, "a", "b"), dir]) expect([d, modeOf(d)]).toEqual([d, 0o700]);
  });

  posixOnly("a umask that clears owner bits (0277) still leaves a new state dir 0700", () => {
    process.umask(0o277);
    const dir = path.join(root, "s");
    mkdirPrivate(dir);
    expect(modeOf(dir)).toBe(0o700);
  });

  posixOnly("an existing dir is never changed by mkdirPrivate (only reported)", () => {
    const dir = path.join(root, "open");
    fs.mkdirSync(dir);
    fs.chmodSync(dir, 0o755);
    mkdirPrivate(path.join(dir, "inner"));
    expect(modeOf(dir)).toBe(0o755);
    expect(modeOf(path.join(dir, "inner"))).toBe(0o700);
  });

  posixOnly("a new state file was created 0644: now 0600, and an existing file keeps its content", () => {
    const file = path.join(root, "db");
    touchPrivate(file);
    expect(modeOf(file)).toBe(0o600);
    fs.writeFileSync(file, "x");
    touchPrivate(file);
    expect(fs.readFileSync(file, "utf8")).toBe("x");
  });

  describe("openToOthersWarning", () => {
    posixOnly.each([0o755, 0o750, 0o705, 0o710, 0o701])("a state dir with mode %o is reported in one line with the chmod command", (mode) => {
      const dir = path.join(root, "state");
      fs.mkdirSync(dir);
      fs.chmodSync(dir, mode);
      const octal = mode.toString(8).padStart(4, "0");
      expect(openToOthersWarning(dir, "gateway state dir")).toBe(
        `the gateway state dir ${dir} is open to other users (mode ${octal}): it holds stored payloads; run: chmod 700 ${dir}`,
      );
    });

    posixOnly("a private (0700) or missing state dir gives no warning", () => {
      const dir = path.join(root, "state");
      expect(openToOthersWarning(dir, "gateway state dir")).toBeUndefined();
      fs.mkdirSync(dir, { mode: 0o700 });
      expect(openToOthersWarning(dir, "gateway state dir")).toBeUndefined();
    });
  });
});
