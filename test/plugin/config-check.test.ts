/**
 * The plugin's config checks in one place (src/plugin/config-check.ts): `activate` and the
 * entry's `configProblems` (what a host asks while its schema check failed) list the schema's
 * problems and what compiling the parts that passed finds, together, each once.
 */
import path from "node:path";
import { activate, configProblems } from "../../src/plugin/index";
import type { HookPresetContribution } from "../../src/host-contract/host-api";
import { createFakeHost } from "../helpers/fake-host";
import { tempDir } from "../helpers/temp-dir";

const TOKEN = "0123456789abcdef0123";
const alpha: HookPresetContribution = { name: "alpha", pluginId: "alpha-pack", mappings: [{ match: { path: "alpha" }, messageTemplate: "a" }] };

const dirs: Array<ReturnType<typeof tempDir>> = [];
const makeTempDir = (prefix: string): string => {
  const t = tempDir(prefix);
  dirs.push(t);
  return t.dir;
};
afterAll(() => dirs.forEach((d) => d.remove()));

describe("plugin config checks", () => {
  it("a schema problem hid the unknown preset from activate until the next start: one ConfigError lists both, nothing is registered", () => {
    const dir = makeTempDir("cfg-check-");
    const host = createFakeHost({ config: { hooks: { enabled: true, token: "short", presets: ["gihtub"] } }, stateDir: dir, configDir: dir });
    let error: Error | undefined;
    try {
      activate(host.api);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.name).toBe("ConfigError");
    expect(error?.message.split("\n")).toEqual([
      "hooks.token must be at least 16 characters long (after trimming)",
      'hooks.presets[0] names an unknown preset "gihtub"; available presets: mail, github',
    ]);
    expect(host.routes).toEqual([]);
    expect(host.services).toEqual([]);
  });

  it("configProblems: [] for a valid config, and the same lines activate would throw for a bad one", () => {
    const configDir = makeTempDir("cfg-check-");
    const input = { configDir, presets: [alpha], presetsComplete: true };
    expect(configProblems({ ...input, config: { hooks: { enabled: true, token: TOKEN, presets: ["alpha"] } } })).toEqual([]);
    expect(
      configProblems({
        ...input,
        config: { hooks: { enabled: true, token: TOKEN, maxBodyBytes: 0, mappings: [{ match: { path: "a" }, transform: { module: "x.js" } }] } },
      }),
    ).toEqual([
      "hooks.maxBodyBytes must be at least 1",
      `hooks.mappings[0].transform.module: hooks.transformsDir (${path.join(configDir, "hooks", "transforms")}) does not exist`,
    ]);
  });

  it("a preset another plugin may still register in code is not called unknown while presets are incomplete", () => {
    const input = {
      configDir: makeTempDir("cfg-check-"),
      presets: [alpha],
      config: { hooks: { enabled: true, token: "short", presets: ["alpha", "computed"] } },
    };
    const unknown = 'hooks.presets[1] names an unknown preset "computed"; available presets: mail, github, alpha';
    expect(configProblems({ ...input, presetsComplete: true })).toContain(unknown);
    expect(configProblems({ ...input, presetsComplete: false })).toEqual(["hooks.token must be at least 16 characters long (after trimming)"]);
  });
});
