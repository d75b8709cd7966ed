import fs from "node:fs";
import path from "node:path";
import * as tar from "tar";
import { installPlugin } from "../../../src/gateway/plugins/install";
import { manifestOf, tmpDir, writePlugin } from "./plugin-fixtures";

/** A fake host package root with `node_modules/<name>@<version>`. */
function hostRoot(pkgs: Record<string, string>): string {
  const root = tmpDir("gw-host-");
  for (const [name, version] of Object.entries(pkgs)) {
    const dir = path.join(root, "node_modules", name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version }));
  }
  return root;
}

describe("installPlugin", () => {
  it("copies a directory without node_modules/.git and links dependencies the host satisfies", async () => {
    const src = writePlugin(tmpDir(), "src", manifestOf("demo"));
    fs.writeFileSync(path.join(src, "package.json"), JSON.stringify({ name: "demo", dependencies: { "lib-a": "^1.2.0" } }));
    fs.mkdirSync(path.join(src, "node_modules", "junk"), { recursive: true });
    fs.mkdirSync(path.join(src, ".git"));
    const host = hostRoot({ "lib-a": "1.4.0" });
    const pluginsDir = path.join(tmpDir(), "plugins");
    const res = await installPlugin({
      source: src,
      pluginsDir,
      hostRoot: host,
      npmInstall: () => {
        throw new Error("must not run");
      },
    });
    expect(res).toEqual({ id: "demo", version: "1.0.0", dir: path.join(pluginsDir, "demo"), dependencies: "linked" });
    expect(fs.existsSync(path.join(res.dir, ".git"))).toBe(false);
    expect(fs.existsSync(path.join(res.dir, "node_modules", "junk"))).toBe(false);
    expect(fs.realpathSync(path.join(res.dir, "node_modules", "lib-a"))).toBe(fs.realpathSync(path.join(host, "node_modules", "lib-a")));
    expect(fs.readdirSync(pluginsDir)).toEqual(["demo"]);
  });

  it("optional dependencies the host has were never linked: the installed plugin could not load better-sqlite3 on Node 20", async () => {
    const src = writePlugin(tmpDir(), "src", manifestOf("opt"));
    fs.writeFileSync(
      path.join(src, "package.json"),
      JSON.stringify({ name: "opt", dependencies: { "lib-a": "^1.0.0" }, optionalDependencies: { "native-db": "^12.0.0", "absent-opt": "^1.0.0" } }),
    );
    const host = hostRoot({ "lib-a": "1.0.0", "native-db": "12.4.0" });
    const res = await installPlugin({
      source: src,
      pluginsDir: path.join(tmpDir(), "plugins"),
      hostRoot: host,
      npmInstall: () => {
        throw new Error("must not run");
      },
    });
    expect(res.dependencies).toBe("linked");
    expect(fs.realpathSync(path.join(res.dir, "node_modules", "native-db"))).toBe(fs.realpathSync(path.join(host, "node_modules", "native-db")));
    // An optional dependency the host lacks is left out, not a reason for a network install.
    expect(fs.existsSync(path.join(res.dir, "node_modules", "absent-opt"))).toBe(false);
  });

  it("links an optional peer the host has: the bundled tarball (no dependencies) reads better-sqlite3 on Node 20 from the host", async () => {
    const src = writePlugin(tmpDir(), "src", manifestOf("peer"));
    fs.writeFileSync(
      path.join(src, "package.json"),
      JSON.stringify({
        name: "peer",
        peerDependencies: { "native-db": "^12.0.0", "absent-peer": "^1.0.0" },
        peerDependenciesMeta: { "native-db": { optional: true }, "absent-peer": { optional: true } },
      }),
    );
    const host = hostRoot({ "native-db": "12.4.0" });
    const res = await installPlugin({
      source: src,
      pluginsDir: path.join(tmpDir(), "plugins"),
      hostRoot: host,
      npmInstall: () => {
        throw new Error("must not run");
      },
    });
    expect(res.dependencies).toBe("linked");
    expect(fs.realpathSync(path.join(res.dir, "node_modules", "native-db"))).toBe(fs.realpathSync(path.join(host, "node_modules", "native-db")));
    expect(fs.existsSync(path.join(res.dir, "node_modules", "absent-peer"))).toBe(false);
  });

  it("unpacks an npm pack tarball (package/ prefix) and reports the replaced version", async () => {
    const work = tmpDir();
    const pkgDir = writePlugin(path.join(work, "stage"), "package", manifestOf("packed", { version: "2.0.0" }));
    const tgz = path.join(work, "packed-2.0.0.tgz");
    await tar.c({ gzip: true, file: tgz, cwd: path.dirname(pkgDir) }, ["package"]);
    const pluginsDir = path.join(tmpDir(), "plugins");
    writePlugin(pluginsDir, "packed", manifestOf("packed", { version: "1.0.0" }));
    const res = await installPlugin({ source: tgz, pluginsDir, hostRoot: hostRoot({}) });
    expect(res).toEqual({ id: "packed", version: "2.0.0", dir: path.join(pluginsDir, "packed"), replaced: "1.0.0", dependencies: "none" });
    expect(JSON.parse(fs.readFileSync(path.join(res.dir, "plugin.json"), "utf8")).version).toBe("2.0.0");
  });

  it("runs npm install when the host cannot provide a dependency", async () => {
    const src = writePlugin(tmpDir(), "src", manifestOf("needs"));
    fs.writeFileSync(path.join(src, "package.json"), JSON.stringify({ dependencies: { "lib-a": "^2.0.0", "lib-b": "^1.0.0" } }));
    const ran: string[] = [];
    const res = await installPlugin({
      source: src,
      pluginsDir: path.join(tmpDir(), "plugins"),
      hostRoot: hostRoot({ "lib-a": "1.0.0", "lib-b": "1.0.0" }),
      npmInstall: (d) => void ran.push(path.basename(d)),
    });
    expect(res.dependencies).toBe("npm-install");
    expect(ran).toHaveLength(1);
    expect(fs.existsSync(path.join(res.dir, "node_modules", "lib-b"))).toBe(false);
  });

  it("refuses a source with an invalid manifest and leaves no staging dir", async () => {
    const src = writePlugin(tmpDir(), "src", { id: "x", name: "x" });
    const pluginsDir = path.join(tmpDir(), "plugins");
    await expect(installPlugin({ source: src, pluginsDir, hostRoot: hostRoot({}) })).rejects.toThrow(
      `${src} is not a valid plugin: plugin.json: version is required`,
    );
    expect(fs.readdirSync(pluginsDir)).toEqual([]);
  });

  it("refuses a file that is neither a directory nor a tarball", async () => {
    const dir = tmpDir();
    const f = path.join(dir, "plugin.zip");
    fs.writeFileSync(f, "x");
    await expect(installPlugin({ source: f, pluginsDir: path.join(dir, "plugins"), hostRoot: dir })).rejects.toThrow(
      `${f} is neither a directory nor a .tgz file`,
    );
  });
});

const posixOnly = process.platform === "win32" ? it.skip : it;

describe("installPlugin: private state", () => {
  posixOnly(
    "an install into a new state dir made the state dir and plugins/ 0755 and kept the copied files 0644: now 0700 and 0600, an executable keeps its owner's x",
    async () => {
      const previous = process.umask(0o022);
      try {
        const src = writePlugin(tmpDir(), "src", manifestOf("private"));
        fs.chmodSync(path.join(src, "plugin.json"), 0o644);
        fs.mkdirSync(path.join(src, "bin"), { mode: 0o755 });
        fs.writeFileSync(path.join(src, "bin", "tool.sh"), "#!/bin/sh\n", { mode: 0o755 });
        const stateDir = path.join(tmpDir(), "state");
        const pluginsDir = path.join(stateDir, "plugins");
        const res = await installPlugin({ source: src, pluginsDir, hostRoot: hostRoot({}) });
        const mode = (p: string) => fs.statSync(p).mode & 0o777;
        expect(mode(stateDir)).toBe(0o700);
        expect(mode(pluginsDir)).toBe(0o700);
        expect(mode(res.dir)).toBe(0o700);
        expect(mode(path.join(res.dir, "plugin.json"))).toBe(0o600);
        expect(mode(path.join(res.dir, "bin"))).toBe(0o700);
        expect(mode(path.join(res.dir, "bin", "tool.sh"))).toBe(0o700);
      } finally {
        process.umask(previous);
      }
    },
  );
});
