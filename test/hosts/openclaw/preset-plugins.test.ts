/**
 * Preset plugins inside OpenClaw: found where OpenClaw installs plugins (its managed npm projects, its
 * extensions dir, `plugins.load.paths`), read from their manifests without running them, and contributing
 * nothing when OpenClaw has switched them off or their declaration cannot be used. Regression: inside
 * OpenClaw no preset plugin could contribute a preset ("OpenClaw plugins cannot contribute presets").
 */
import fs from "node:fs";
import path from "node:path";
import { openClawPresetPlugins } from "../../../src/hosts/openclaw/preset-plugins";
import { tempDir } from "../../helpers/temp-dir";

const EXAMPLE = path.resolve(__dirname, "../../../examples/preset-plugin-alertmanager");
const PACKAGE = "inbound-webhooks-preset-alertmanager";

/** The example as `openclaw plugins install npm-pack:…` lays it out: `<state>/npm/projects/<project>/node_modules/<package>`. */
function installNpm(state: string, project = PACKAGE): string {
  const root = path.join(state, "npm", "projects", project);
  const dir = path.join(root, "node_modules", PACKAGE);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  fs.cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}test`) });
  fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ private: true, dependencies: { [PACKAGE]: "file:x.tgz" } }));
  return dir;
}

const enabled = { plugins: { entries: { "alertmanager-preset": { enabled: true } } } };

describe("openClawPresetPlugins", () => {
  let state: ReturnType<typeof tempDir>;
  beforeEach(() => (state = tempDir("iw-oc-presets-")));
  afterEach(() => state.remove());

  it("an npm-pack install contributes its declared presets, transformsDir absolute inside the installed copy", () => {
    const dir = installNpm(state.dir);
    const found = openClawPresetPlugins(enabled, state.dir, state.dir);
    expect(found.problems).toEqual([]);
    expect(found.presets).toEqual([
      expect.objectContaining({ name: "alertmanager", pluginId: "alertmanager-preset", transformsDir: path.join(dir, "transforms") }),
    ]);
    expect(found.presets[0]!.mappings[0]).toMatchObject({ id: "alertmanager", match: { path: "alertmanager" } });
  });

  it("a path install (extensions/) and a linked one (plugins.load.paths, relative to the config dir) contribute too", () => {
    fs.cpSync(EXAMPLE, path.join(state.dir, "extensions", "alertmanager-preset"), { recursive: true });
    expect(openClawPresetPlugins(enabled, state.dir, state.dir).presets.map((p) => p.name)).toEqual(["alertmanager"]);
    const linked = { plugins: { ...enabled.plugins, load: { paths: [path.relative(state.dir, EXAMPLE)] } } };
    expect(openClawPresetPlugins(linked, path.join(state.dir, "elsewhere"), state.dir).presets.map((p) => p.name)).toEqual(["alertmanager"]);
  });

  it("a plugin OpenClaw switched off contributes nothing", () => {
    installNpm(state.dir);
    const off = (plugins: Record<string, unknown>) => openClawPresetPlugins({ plugins }, state.dir, state.dir).presets;
    expect(off({ entries: { "alertmanager-preset": { enabled: false } } })).toEqual([]);
    expect(off({ enabled: false, entries: enabled.plugins.entries })).toEqual([]);
    expect(off({ deny: ["alertmanager-preset"], entries: enabled.plugins.entries })).toEqual([]);
    expect(off({ allow: ["inbound-webhooks"], entries: enabled.plugins.entries })).toEqual([]);
  });

  it("a declaration whose transformsDir leaves the plugin is reported in the embedded gateway's words and contributes nothing", () => {
    const dir = installNpm(state.dir);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "plugin.json"), "utf8"));
    manifest.contributes.presets[0].transformsDir = "../../elsewhere";
    fs.writeFileSync(path.join(dir, "plugin.json"), JSON.stringify(manifest));
    expect(openClawPresetPlugins(enabled, state.dir, state.dir)).toEqual({
      presets: [],
      problems: [
        `preset plugin alertmanager-preset (${dir}) contributes no presets: plugin.json: contributes.presets "alertmanager" transformsDir points outside the plugin directory`,
      ],
    });
  });

  it("ordinary OpenClaw plugins (no plugin.json, or no presets) and the inbound-webhooks plugin itself are passed over", () => {
    const other = path.join(state.dir, "extensions", "other");
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, "openclaw.plugin.json"), JSON.stringify({ id: "other", configSchema: {} }));
    expect(openClawPresetPlugins({}, state.dir, state.dir)).toEqual({ presets: [], problems: [] });
  });
});
