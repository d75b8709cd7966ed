import path from "node:path";
import { readManifest } from "../../../src/gateway/plugins/manifest";
import { discoverPlugins } from "../../../src/gateway/plugins/discover";
import { openPluginState } from "../../../src/gateway/plugins/plugin-state";
import { manifestPresets } from "../../../src/gateway/plugins/presets";
import { manifestOf, tmpDir, writePlugin } from "./plugin-fixtures";

describe("readManifest", () => {
  it("accepts a complete manifest", () => {
    const dir = writePlugin(tmpDir(), "ok", manifestOf("ok"));
    const r = readManifest(dir);
    expect(r).toEqual({ ok: true, manifest: manifestOf("ok") });
  });

  it.each([
    [
      "a missing required field",
      (() => {
        const m: Record<string, unknown> = manifestOf("x");
        delete m.main;
        return m;
      })(),
      "plugin.json: main is required",
    ],
    ["an id with capitals", manifestOf("Bad Id"), 'plugin.json: id must match pattern "^[a-z0-9][a-z0-9._-]{0,127}$"'],
    ["a non-semver version", manifestOf("x", { version: "one" }), 'plugin.json: version "one" is not a semver version'],
    ["an invalid hostApi range", manifestOf("x", { hostApi: "banana" }), 'plugin.json: hostApi "banana" is not a semver range'],
    ["a hostApi this host does not satisfy", manifestOf("x", { hostApi: "^1.4.0" }), "plugin.json: needs host API ^1.4.0, this gateway implements 2.2.0"],
    ["a main outside the plugin dir", manifestOf("x", { main: "../evil.js" }), 'plugin.json: main "../evil.js" points outside the plugin directory'],
    ["a main that does not exist", manifestOf("x", { main: "dist/index.js" }), 'plugin.json: main "dist/index.js" does not exist (is the plugin built?)'],
    [
      "an invalid configSchema",
      manifestOf("x", { configSchema: { type: "nonsense" } }),
      expect.stringMatching(/^plugin\.json: configSchema is not a valid JSON Schema/),
    ],
  ])("refuses %s", (_what, manifest, reason) => {
    const dir = writePlugin(tmpDir(), "p", manifest);
    expect(readManifest(dir)).toEqual({ ok: false, reason, id: (manifest as { id: string }).id });
  });

  it("refuses invalid JSON and a missing plugin.json", () => {
    const parent = tmpDir();
    const dir = writePlugin(parent, "p", "{ not json");
    expect(readManifest(dir)).toEqual({ ok: false, reason: expect.stringMatching(/^plugin\.json is not valid JSON/) });
    expect(readManifest(parent)).toEqual({ ok: false, reason: `no plugin.json in ${parent}` });
  });
});

describe("discoverPlugins", () => {
  it("orders plugins.paths, then installed, then built-in; the first copy of an id wins", () => {
    const root = tmpDir();
    const custom = writePlugin(root, "custom", manifestOf("dup"));
    const installed = path.join(root, "state", "plugins");
    const inst = writePlugin(installed, "dup", manifestOf("dup", { version: "2.0.0" }));
    const other = writePlugin(installed, "other", manifestOf("other"));
    const broken = writePlugin(installed, "broken", "{");
    const builtin = writePlugin(root, "builtin", manifestOf("dup", { version: "0.1.0" }));
    const found = discoverPlugins({ builtinDir: builtin, paths: [custom], installedDir: installed, state: openPluginState(path.join(root, "state")) });
    expect(found.map((p) => [p.dir, p.origin, p.status])).toEqual([
      [custom, "path", "ok"],
      [broken, "installed", "broken"],
      [inst, "installed", "shadowed"],
      [other, "installed", "ok"],
      [builtin, "builtin", "shadowed"],
    ]);
    expect(found[2]!.reason).toBe(`shadowed by path copy in ${custom}`);
  });

  it("marks plugins disabled in <stateDir>/plugins.json", () => {
    const root = tmpDir();
    const dir = writePlugin(root, "a", manifestOf("a"));
    const state = openPluginState(path.join(root, "state"));
    state.setEnabled("a", false);
    expect(discoverPlugins({ paths: [dir], installedDir: path.join(root, "none"), state })[0]!.status).toBe("disabled");
    state.setEnabled("a", true);
    expect(discoverPlugins({ paths: [dir], installedDir: path.join(root, "none"), state })[0]!.status).toBe("ok");
  });
});

describe("manifestPresets", () => {
  it("returns presets with mappings, transformsDir made absolute, and skips descriptive entries", () => {
    const dir = "/plugins/p";
    const presets = manifestPresets(
      manifestOf("p", {
        contributes: {
          presets: [
            { name: "mail", description: "implemented in code" },
            { name: "github", description: "GitHub events", mappings: [{ match: { path: "github" }, action: "agent" }], transformsDir: "transforms" },
          ],
        },
      }) as never,
      dir,
    );
    expect(presets).toEqual([
      {
        name: "github",
        description: "GitHub events",
        pluginId: "p",
        mappings: [{ match: { path: "github" }, action: "agent" }],
        transformsDir: "/plugins/p/transforms",
      },
    ]);
  });
});
