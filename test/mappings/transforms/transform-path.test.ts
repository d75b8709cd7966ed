import fs from "node:fs";
import path from "node:path";
import type { MappingConfig } from "../../../src/config/types";
import { ConfigError } from "../../../src/core/errors";
import { createMappingEngine } from "../../../src/mappings/engine";
import type { HookPresetContribution } from "../../../src/host-contract/host-api";
import { captureLogger, hookInput, makeConfig, mapping, tempDir } from "../helpers";

/** A config dir with hooks/transforms/ok.js, and a directory outside it with evil.js. */
let configDir: string;
let transformsDir: string;
let outside: string;

beforeEach(() => {
  configDir = tempDir("iw-config-");
  transformsDir = path.join(configDir, "hooks", "transforms");
  fs.mkdirSync(transformsDir, { recursive: true });
  fs.writeFileSync(path.join(transformsDir, "ok.js"), 'export default () => ({ message: "inside" });\n');
  outside = tempDir("iw-outside-");
  fs.writeFileSync(path.join(outside, "evil.js"), 'export default () => ({ message: "evil" });\n');
});

afterEach(() => {
  fs.rmSync(configDir, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

function start(transform: MappingConfig["transform"], opts: { dir?: string; presets?: HookPresetContribution[]; enabled?: string[] } = {}) {
  return createMappingEngine({
    config: makeConfig({ mappings: transform ? [mapping({ id: "m", transform })] : [], transformsDir: opts.dir ?? transformsDir, presets: opts.enabled ?? [] }),
    presets: opts.presets ?? [],
    logger: captureLogger(),
    configDir,
  });
}

function startError(...args: Parameters<typeof start>): string {
  try {
    start(...args);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("transform containment is checked at start (SPEC §6.3)", () => {
  test("a module inside hooks.transformsDir is accepted", async () => {
    const engine = start({ module: "ok.js" });
    const r = await engine.resolve(hookInput("x", {}));
    expect(r.ok && r.value.kind === "action" && r.value.raw.message).toBe("inside");
  });

  test("../evil.js is refused", () => {
    fs.copyFileSync(path.join(outside, "evil.js"), path.join(configDir, "hooks", "evil.js"));
    expect(startError({ module: "../evil.js" })).toBe('hooks.mappings[0].transform.module must stay inside hooks.transformsDir; "../evil.js" contains ".."');
  });

  test("a nested .. is refused even when it would land inside", () => {
    expect(startError({ module: "sub/../ok.js" })).toBe(
      'hooks.mappings[0].transform.module must stay inside hooks.transformsDir; "sub/../ok.js" contains ".."',
    );
  });

  test("an absolute path outside is refused", () => {
    const abs = path.join(outside, "evil.js");
    expect(startError({ module: abs })).toBe(`hooks.mappings[0].transform.module must be a path relative to hooks.transformsDir; "${abs}" is absolute`);
  });

  test("an absolute path inside is refused too (paths are relative to the directory)", () => {
    const abs = path.join(transformsDir, "ok.js");
    expect(startError({ module: abs })).toContain("is absolute");
  });

  test("a transformsDir outside the config directory is refused", () => {
    expect(startError({ module: "evil.js" }, { dir: outside })).toBe(
      `hooks.transformsDir must be inside the config directory (${configDir}); "${outside}" is outside it`,
    );
  });

  test("a transformsDir that is a symlink to outside the config directory is refused", () => {
    const link = path.join(configDir, "linked-transforms");
    fs.symlinkSync(outside, link);
    expect(startError({ module: "evil.js" }, { dir: link })).toBe(
      `hooks.transformsDir must be inside the config directory (${configDir}); "${link}" resolves outside it through a symbolic link`,
    );
  });

  test("a symlink pointing outside is refused", () => {
    fs.symlinkSync(path.join(outside, "evil.js"), path.join(transformsDir, "sneaky.js"));
    expect(startError({ module: "sneaky.js" })).toBe(
      'hooks.mappings[0].transform.module must stay inside hooks.transformsDir; "sneaky.js" resolves outside it through a symbolic link',
    );
  });

  test("a symlinked sub-directory pointing outside is refused", () => {
    fs.symlinkSync(outside, path.join(transformsDir, "vendor"));
    expect(startError({ module: "vendor/evil.js" })).toContain('"vendor/evil.js" resolves outside it through a symbolic link');
  });

  test("a symlink inside pointing to another file inside is accepted", async () => {
    fs.mkdirSync(path.join(transformsDir, "lib"));
    fs.writeFileSync(path.join(transformsDir, "lib", "real.js"), 'export default () => ({ message: "via link" });\n');
    fs.symlinkSync(path.join(transformsDir, "lib", "real.js"), path.join(transformsDir, "current.js"));
    const engine = start({ module: "current.js" });
    const r = await engine.resolve(hookInput("x", {}));
    expect(r.ok && r.value.kind === "action" && r.value.raw.message).toBe("via link");
  });

  test("a hard link to a file outside hooks.transformsDir is refused (regression: only symlinks were checked)", () => {
    fs.linkSync(path.join(outside, "evil.js"), path.join(transformsDir, "linked.js"));
    expect(startError({ module: "linked.js" })).toBe(
      'hooks.mappings[0].transform.module must be a file with a single link inside hooks.transformsDir; "linked.js" has 2 hard links, so it may be a file from outside the directory (copy it instead of linking it)',
    );
  });

  test("a symlink inside that points at a hard-linked file is refused too", () => {
    fs.linkSync(path.join(outside, "evil.js"), path.join(transformsDir, "linked.js"));
    fs.symlinkSync(path.join(transformsDir, "linked.js"), path.join(transformsDir, "alias.js"));
    expect(startError({ module: "alias.js" })).toContain('"alias.js" has 2 hard links');
  });

  test("a copy of the same file is accepted", async () => {
    fs.copyFileSync(path.join(outside, "evil.js"), path.join(transformsDir, "copied.js"));
    const engine = start({ module: "copied.js" });
    const r = await engine.resolve(hookInput("x", {}));
    expect(r.ok && r.value.kind === "action" && r.value.raw.message).toBe("evil");
  });

  test("a missing module file fails start", () => {
    expect(startError({ module: "nope.js" })).toBe(`hooks.mappings[0].transform.module: "nope.js" does not exist in hooks.transformsDir (${transformsDir})`);
  });

  test("a directory is not a module", () => {
    fs.mkdirSync(path.join(transformsDir, "dir.js"));
    expect(startError({ module: "dir.js" })).toContain('"dir.js" does not exist in hooks.transformsDir');
  });

  test("an unsupported extension fails start", () => {
    fs.writeFileSync(path.join(transformsDir, "t.py"), "print(1)\n");
    expect(startError({ module: "t.py" })).toBe('hooks.mappings[0].transform.module must name a .js, .mjs, .cjs, .ts file; "t.py" is not one');
  });

  test("without transforms, a transformsDir outside the config directory is not an error", () => {
    expect(() => start(undefined, { dir: outside })).not.toThrow();
  });

  describe("preset transforms resolve against the preset's transformsDir", () => {
    const preset = (module: string, dir: string): HookPresetContribution => ({
      name: "p",
      pluginId: "p-plugin",
      transformsDir: dir,
      mappings: [{ id: "pm", match: { path: "p" }, transform: { module } }],
    });

    test("a module inside the preset's directory is accepted (it need not be inside the config directory)", async () => {
      const engine = start(undefined, { presets: [preset("evil.js", outside)], enabled: ["p"] });
      const r = await engine.resolve(hookInput("p", {}));
      expect(r.ok && r.value.kind === "action" && r.value.raw.message).toBe("evil");
    });

    test("a symlink out of the preset's directory is refused", () => {
      fs.symlinkSync(path.join(transformsDir, "ok.js"), path.join(outside, "escape.js"));
      expect(startError(undefined, { presets: [preset("escape.js", outside)], enabled: ["p"] })).toBe(
        'presets.p.mappings[0].transform.module must stay inside the transformsDir of preset "p" (plugin p-plugin); "escape.js" resolves outside it through a symbolic link',
      );
    });

    test("a preset with a transform but no transformsDir fails start", () => {
      const p: HookPresetContribution = { name: "p", pluginId: "p-plugin", mappings: [{ id: "pm", transform: { module: "t.js" } }] };
      expect(startError(undefined, { presets: [p], enabled: ["p"] })).toBe(
        'presets.p.mappings[0].transform.module: the transformsDir of preset "p" (plugin p-plugin) is not set, so no transform can be loaded',
      );
    });
  });
});
