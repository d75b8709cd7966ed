/**
 * What `npm pack` ships (SPEC §15 "ships only what runs"): one bundled entry for both hosts (dist/bundle/index.js,
 * scripts/bundle.js), the inspector's assets it reads at run time, the two manifests, README and package.json — and
 * a package.json that declares no runtime dependency. Before: the tarball declared the plugin's 24 libraries, and
 * OpenClaw 2026.9.6 copied them (5,480 files, 57 MB) into its state dir at every `openclaw inbound-webhooks …`
 * command (docs/openclaw.md "CLI time"); before that, a fresh clone's `npm pack` shipped no dist/ at all (the
 * `prepack` build is tested on a fresh clone by test/e2e/openclaw/openclaw-features.test.ts, docs-install).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const BUNDLE = path.join(ROOT, "dist", "bundle", "index.js");

/** Resolved by the host at run time (scripts/bundle.js EXTERNAL): better-sqlite3 is an optional peer, OpenClaw's SDK is OpenClaw's. */
const HOST_PROVIDED = /^(better-sqlite3|openclaw(\/.*)?|pg-native)$/;

describe("npm pack", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as Record<string, unknown>;

  it("ships only what runs: the bundled entry, the inspector's assets, the manifests, README and package.json", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" });
    const [{ files }] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
    const paths = files.map((f) => f.path);
    // bin/gateway.js: npm always packs a declared bin; it says that the gateway runs from a clone.
    const outside = paths.filter(
      (p) =>
        !/^dist\/bundle\/index\.js(\.LEGAL\.txt)?$/.test(p) &&
        !p.startsWith("dist/inspector/assets/") &&
        !["package.json", "README.md", "plugin.json", "openclaw.plugin.json", "bin/gateway.js"].includes(p),
    );
    expect(outside).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(["dist/bundle/index.js", "dist/inspector/assets/dashboard.css", "openclaw.plugin.json", "plugin.json"]));
  });

  it("declares no runtime dependency: OpenClaw copied every declared package at each CLI command (better-sqlite3 is an optional peer)", () => {
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.optionalDependencies).toBeUndefined();
    expect(pkg.peerDependencies).toEqual({ "better-sqlite3": expect.any(String) });
    expect(pkg.peerDependenciesMeta).toEqual({ "better-sqlite3": { optional: true } });
    expect((pkg.openclaw as { extensions: string[] }).extensions).toEqual(["./dist/bundle/index.js"]);
    expect(pkg.main).toBe("dist/bundle/index.js");
  });

  it("its bundle requires nothing but Node's modules and what the host provides", () => {
    if (!fs.existsSync(BUNDLE)) throw new Error("dist/bundle/index.js is not built: run `npm run build` first");
    const text = fs.readFileSync(BUNDLE, "utf8");
    const required = new Set<string>();
    for (const m of text.matchAll(/\brequire\("([^"]+)"\)/g)) required.add(m[1]!);
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    const foreign = [...required].filter((r) => !builtins.has(r) && !r.startsWith("node:") && !HOST_PROVIDED.test(r));
    expect(foreign).toEqual([]);
  });

  it("its bundle loads both hosts' entries: OpenClaw's register (and default plugin) and the embedded gateway's activate", () => {
    const out = execFileSync(
      process.execPath,
      ["-e", "const m = require(process.argv[1]); console.log([typeof m.register, typeof m.default.register, typeof m.activate, m.id].join(' '))", BUNDLE],
      { encoding: "utf8" },
    );
    expect(out.trim()).toBe("function function function inbound-webhooks");
  });
});
