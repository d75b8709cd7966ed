import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openClawPackageRoot } from "../../../src/hosts/openclaw/detached-work";

describe("finding OpenClaw's package to take runDetachedWebhookWork from (detached-work.ts)", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-detached-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("the openclaw package above the process's entry (argv[1]), through a symlinked bin", () => {
    const pkg = path.join(dir, "node_modules", "openclaw");
    fs.mkdirSync(path.join(pkg, "dist"), { recursive: true });
    fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "openclaw" }));
    fs.writeFileSync(path.join(pkg, "openclaw.mjs"), "");
    fs.mkdirSync(path.join(dir, "bin"));
    fs.symlinkSync(path.join(pkg, "openclaw.mjs"), path.join(dir, "bin", "openclaw"));
    expect(openClawPackageRoot(path.join(dir, "bin", "openclaw"))).toBe(fs.realpathSync(pkg));
    expect(openClawPackageRoot(path.join(pkg, "openclaw.mjs"))).toBe(fs.realpathSync(pkg));
  });

  it("none when the entry is not inside an openclaw package (jest, the embedded gateway) or missing", () => {
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "something-else" }));
    fs.writeFileSync(path.join(dir, "main.js"), "");
    expect(openClawPackageRoot(path.join(dir, "main.js"))).toBeUndefined();
    expect(openClawPackageRoot(path.join(dir, "absent.js"))).toBeUndefined();
    expect(openClawPackageRoot(undefined)).toBeUndefined();
  });
});
