/**
 * Start-up checks of mapped hooks through the plugin's activation (SPEC §6): an
 * unknown preset and a transformsDir outside the config directory fail the
 * activation with the key named; a shadowed mapping is a warning.
 */
import fs from "node:fs";
import path from "node:path";
import { startPluginApp } from "../helpers/plugin-app";
import { alertmanagerContributions } from "../../examples/preset-plugin-alertmanager/test/contributions";
import { makeConfigDir, startMappedApp, type MappedApp } from "./mapped-app";

describe("mapped hooks over HTTP", () => {
  let h: MappedApp;
  afterEach(async () => h?.close());

  describe("start-up checks through activation", () => {
    test("an unknown preset fails activation naming the available presets", async () => {
      const dir = makeConfigDir();
      try {
        await expect(
          startPluginApp({ configDir: dir, stateDir: dir, presets: alertmanagerContributions(), hooks: { presets: ["mail", "jira"] } }),
        ).rejects.toThrow('hooks.presets[1] names an unknown preset "jira"; available presets: mail, github, alertmanager');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    test("a transformsDir outside the config directory fails activation", async () => {
      const dir = makeConfigDir();
      const outside = makeConfigDir();
      try {
        const hooks = {
          mappings: [{ id: "t", match: { path: "t" }, transform: { module: "skip.js" } }],
          transformsDir: path.join(outside, "hooks", "transforms"),
        };
        await expect(startPluginApp({ configDir: dir, stateDir: dir, hooks })).rejects.toThrow(
          `hooks.transformsDir must be inside the config directory (${dir})`,
        );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
        fs.rmSync(outside, { recursive: true, force: true });
      }
    });

    test("a shadowed mapping is reported as a warning at start", async () => {
      h = await startMappedApp({
        hooks: {
          mappings: [
            { id: "all", messageTemplate: "x" },
            { id: "never", match: { path: "github" }, messageTemplate: "y" },
          ],
        },
      });
      const warning = h.host.logs.find((l) => l.level === "warn" && l.message.startsWith('mapping "never"'));
      expect(warning?.message).toBe(
        'mapping "never" (hooks.mappings[1]) can never match: it is shadowed by the catch-all mapping "all" (hooks.mappings[0]), which comes first and matches every request it would',
      );
    });
  });
});
