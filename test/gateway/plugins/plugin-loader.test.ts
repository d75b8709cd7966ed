import fs from "node:fs";
import path from "node:path";
import { EventEmitter } from "eventemitter3";
import type { ConfigCheckInput, HostEvents, PluginApi } from "../../../src/host-contract/host-api";
import { loadPlugins } from "../../../src/gateway/plugins/plugin-loader";
import { discoverPlugins } from "../../../src/gateway/plugins/discover";
import { openPluginState } from "../../../src/gateway/plugins/plugin-state";
import { resolveGatewayConfig } from "../../../src/gateway/config/load-config";
import { GatewayConfigError } from "../../../src/gateway/config/config-error";
import { createCliRuntime } from "../../../src/gateway/runtime";
import { createGatewayLogger } from "../../../src/gateway/logger";
import { createChannelRegistry } from "../../../src/gateway/channels/channel-registry";
import { createSessionStore } from "../../../src/gateway/sessions/session-store";
import { createJournal } from "../../../src/gateway/journal/journal";
import { manifestOf, tmpDir, writePlugin } from "./plugin-fixtures";

import { Writable } from "node:stream";

const sink = new Writable({ write: (_c, _e, cb) => cb() });

/** Plugins given as in-memory modules (the loader's `load` is injected). */
function run(plugins: Array<{ manifest: Record<string, unknown>; module?: unknown; throwOnLoad?: Error }>, raw: Record<string, unknown> = {}) {
  const root = tmpDir();
  const modules = new Map<string, unknown>();
  const loadCalls: string[] = [];
  const dirs = plugins.map((p, i) => {
    const dir = writePlugin(root, `p${i}`, p.manifest);
    modules.set(path.join(dir, "index.js"), p.throwOnLoad ?? p.module);
    return dir;
  });
  const configPath = path.join(root, "gateway.config.json");
  const config = resolveGatewayConfig({ ...raw, gateway: { ...(raw.gateway as object | undefined), stateDir: "state" } }, { configPath, configDir: root });
  const discovered = discoverPlugins({ paths: dirs, installedDir: path.join(root, "none"), state: openPluginState(config.stateDir) });
  const sessions = createSessionStore({ dir: path.join(root, "sessions") });
  const journal = createJournal({ file: path.join(root, "journal.jsonl") });
  const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const channels = createChannelRegistry({ journal, sessions, mainKey: "main", logger: quiet });
  const load = (file: string) => {
    loadCalls.push(file);
    const m = modules.get(file);
    if (m instanceof Error) throw m;
    return m;
  };
  const args = () => ({
    config,
    discovered,
    runtime: createCliRuntime({ models: [] }),
    events: new EventEmitter<HostEvents>(),
    logger: createGatewayLogger("error", sink),
    channels,
    load,
  });
  const exec = () => loadPlugins(args());
  return { exec, args, configPath, loadCalls, channels, root, config };
}

const mod = (activate: (api: PluginApi) => void, deactivate?: () => void) => ({ activate, deactivate });

describe("plugin loader", () => {
  it("validates the config section against configSchema before activating any plugin", () => {
    const activated: string[] = [];
    const t = run(
      [
        { manifest: manifestOf("a"), module: mod(() => void activated.push("a")) },
        {
          manifest: manifestOf("b", { configSection: "bee", configSchema: { type: "object", properties: { size: { type: "integer" } } } }),
          module: mod(() => void activated.push("b")),
        },
      ],
      { bee: { size: "big" } },
    );
    expect(t.exec).toThrow(GatewayConfigError);
    expect(t.exec).toThrow(`invalid config ${t.configPath}: bee.size must be an integer`);
    expect(activated).toEqual([]);
  });

  it("a schema problem hid what the plugin's own checks find until the next start: configProblems is asked, nothing is activated, repeats are dropped", () => {
    const activated: string[] = [];
    const inputs: ConfigCheckInput[] = [];
    const checked = {
      activate: () => void activated.push("b"),
      configProblems: (input: ConfigCheckInput) => {
        inputs.push(input);
        return ["bee.size must be an integer", 'bee.colour names an unknown colour "blu"'];
      },
    };
    const t = run(
      [
        {
          manifest: manifestOf("a", { contributes: { presets: [{ name: "alpha", mappings: [{ match: { path: "alpha" } }] }] } }),
          module: mod(() => void activated.push("a")),
        },
        {
          manifest: manifestOf("b", {
            configSection: "bee",
            configSchema: { type: "object", properties: { size: { type: "integer" }, colour: { type: "string" } } },
          }),
          module: checked,
        },
      ],
      { bee: { size: "big", colour: "blu" } },
    );
    expect(() => t.exec()).toThrow(
      [`invalid config ${t.configPath}: bee.size must be an integer`, `invalid config ${t.configPath}: bee.colour names an unknown colour "blu"`].join("\n"),
    );
    expect(activated).toEqual([]);
    expect(inputs[0]).toMatchObject({
      configDir: t.root,
      config: { bee: { size: "big" } },
      presetsComplete: false,
      presets: [expect.objectContaining({ name: "alpha", pluginId: "a" })],
    });
  });

  it("a plugin's configProblems that throws adds nothing: the schema's lines stand", () => {
    const t = run(
      [
        {
          manifest: manifestOf("b", { configSection: "bee", configSchema: { type: "object", properties: { size: { type: "integer" } } } }),
          module: {
            activate: () => {},
            configProblems: () => {
              throw new Error("boom");
            },
          },
        },
      ],
      { bee: { size: "big" } },
    );
    expect(t.exec).toThrow(new GatewayConfigError(t.configPath, "bee.size", "must be an integer").message);
  });

  it("reports every problem of every plugin's section at once, before activating any plugin", () => {
    const t = run(
      [
        {
          manifest: manifestOf("a", {
            configSection: "ay",
            configSchema: { type: "object", properties: { on: { type: "boolean" } }, additionalProperties: false },
          }),
          module: mod(() => {}),
        },
        {
          manifest: manifestOf("b", { configSection: "bee", configSchema: { type: "object", properties: { size: { type: "integer", minimum: 1 } } } }),
          module: mod(() => {}),
        },
      ],
      { ay: { on: "yes", of: 1 }, bee: { size: 0 } },
    );
    const e = (() => {
      try {
        t.exec();
      } catch (err) {
        return err as GatewayConfigError;
      }
      throw new Error("expected a GatewayConfigError");
    })();
    expect(e.message.split("\n")).toEqual([
      `invalid config ${t.configPath}: ay.of is not a known key (did you mean ay.on?)`,
      `invalid config ${t.configPath}: ay.on must be a boolean (true or false)`,
      `invalid config ${t.configPath}: bee.size must be at least 1`,
    ]);
  });

  it("a ConfigError of several lines from activate is one problem per line", () => {
    const t = run([
      {
        manifest: manifestOf("hooks"),
        module: mod(() => {
          const e = new Error("hooks.maxBodyBytes must be at least 1\nhooks.token is required when hooks.enabled is true");
          e.name = "ConfigError";
          throw e;
        }),
      },
    ]);
    expect(t.exec).toThrow(
      `invalid config ${t.configPath}: hooks.maxBodyBytes must be at least 1\ninvalid config ${t.configPath}: hooks.token is required when hooks.enabled is true`,
    );
  });

  it("does not validate an absent section", () => {
    const t = run([{ manifest: manifestOf("b", { configSection: "bee", configSchema: { type: "object", required: ["x"] } }), module: mod(() => {}) }]);
    expect(t.exec().reports[0]).toMatchObject({ id: "b", status: "active" });
  });

  it("treats a ConfigError thrown by activate as fatal, naming the file and the plugin's key", () => {
    const t = run([
      {
        manifest: manifestOf("hooks"),
        module: mod(() => {
          const e = new Error("hooks.token is required when hooks.enabled is true");
          e.name = "ConfigError";
          throw e;
        }),
      },
    ]);
    expect(t.exec).toThrow(`invalid config ${t.configPath}: hooks.token is required when hooks.enabled is true`);
  });

  it("marks a plugin broken when it cannot load, lacks activate, throws, or activates asynchronously — others still activate", () => {
    let registeredBeforeThrow = false;
    const t = run([
      { manifest: manifestOf("noload"), throwOnLoad: new Error("Cannot find module 'left-pad'\nRequire stack: …") },
      { manifest: manifestOf("noactivate"), module: { hello: 1 } },
      {
        manifest: manifestOf("thrower"),
        module: mod((api) => {
          api.registerHttpRoute({ prefix: "/thrower", handler: () => undefined });
          registeredBeforeThrow = true;
          throw new TypeError("x is undefined");
        }),
      },
      { manifest: manifestOf("async"), module: { activate: async () => {} } },
      { manifest: manifestOf("good"), module: mod((api) => api.registerHttpRoute({ prefix: "good/", handler: () => undefined })) },
    ]);
    const loaded = t.exec();
    expect(loaded.reports.map((r) => [r.id, r.status, r.reason])).toEqual([
      ["noload", "broken", "cannot load index.js: Cannot find module 'left-pad'"],
      ["noactivate", "broken", "index.js does not export activate(api)"],
      ["thrower", "broken", "activate failed: x is undefined"],
      ["async", "broken", "activate(api) returned a promise; it must be synchronous (do async work in a registered service)"],
      ["good", "active", undefined],
    ]);
    expect(registeredBeforeThrow).toBe(true);
    expect(loaded.routes.map((r) => [r.prefix, r.pluginId])).toEqual([["/good", "good"]]);
  });

  it("refuses a route prefix that collides with a gateway route or another plugin's route", () => {
    const withKey = run([
      {
        manifest: manifestOf("hooks", { contributes: { httpRoutes: [{ prefixFromConfig: "hooks.path" }] } }),
        module: mod((api) => api.registerHttpRoute({ prefix: "/api/hooks", handler: () => undefined })),
      },
    ]);
    expect(withKey.exec).toThrow(`invalid config ${withKey.configPath}: hooks.path "/api/hooks" collides with the gateway's route "/api"`);

    const twoPlugins = run([
      { manifest: manifestOf("one"), module: mod((api) => api.registerHttpRoute({ prefix: "/hooks", handler: () => undefined })) },
      { manifest: manifestOf("two"), module: mod((api) => api.registerHttpRoute({ prefix: "/Hooks/sub", handler: () => undefined })) },
    ]);
    expect(twoPlugins.exec).toThrow(`invalid config ${twoPlugins.configPath}: plugin two route "/Hooks/sub" collides with plugin one's route "/hooks"`);
  });

  it("does not treat /hooksX as colliding with /hooks", () => {
    const t = run([
      { manifest: manifestOf("one"), module: mod((api) => api.registerHttpRoute({ prefix: "/hooks", handler: () => undefined })) },
      { manifest: manifestOf("two"), module: mod((api) => api.registerHttpRoute({ prefix: "/hooksX", handler: () => undefined })) },
    ]);
    expect(t.exec().routes.map((r) => r.prefix)).toEqual(["/hooks", "/hooksX"]);
  });

  it("refuses the prefix / and gives each plugin its own state dir and the frozen config", () => {
    const seen: PluginApi[] = [];
    const t = run(
      [
        { manifest: manifestOf("root"), module: mod((api) => api.registerHttpRoute({ prefix: "/", handler: () => undefined })) },
        { manifest: manifestOf("spy"), module: mod((api) => void seen.push(api)) },
      ],
      { custom: { a: 1 } },
    );
    const loaded = t.exec();
    expect(loaded.reports[0]).toMatchObject({
      status: "broken",
      reason: 'activate failed: registerHttpRoute: prefix "/" is refused (it would take every route)',
    });
    const api = seen[0]!;
    expect(api.stateDir).toBe(path.join(t.config.stateDir, "data", "spy"));
    expect(fs.statSync(api.stateDir).isDirectory()).toBe(true);
    expect(api.configDir).toBe(t.root);
    expect(api.configPath).toBe(t.configPath);
    expect(api.hostApiVersion).toBe("2.2.0");
    expect((api.config.custom as { a: number }).a).toBe(1);
    expect(Object.isFrozen(api.config.custom)).toBe(true);
  });

  it("plugins see the port --port chose as gateway.port (regression: the mail watcher's default URL used the file's port)", () => {
    const seen: PluginApi[] = [];
    const t = run([{ manifest: manifestOf("spy"), module: mod((api) => void seen.push(api)) }], { gateway: { port: 18789, bind: "127.0.0.1" } });
    t.exec();
    expect((seen[0]!.config.gateway as { port: number }).port).toBe(18789);
    seen.length = 0;
    loadPlugins({ ...t.args(), config: { ...t.config, port: 24001 } });
    expect(seen[0]!.config.gateway as { port: number; bind: string }).toMatchObject({ port: 24001, bind: "127.0.0.1" });
    seen.length = 0;
    loadPlugins({ ...t.args(), config: { ...t.config, port: 0 } });
    expect((seen[0]!.config.gateway as { port: number }).port).toBe(18789);
  });

  it("lists manifest presets of all enabled plugins to every activate, plus registered ones", () => {
    const lists: string[][] = [];
    const t = run([
      {
        manifest: manifestOf("consumer-first"),
        module: mod((api) => void lists.push(api.listPresets().map((p) => `${p.pluginId}/${p.name}`))),
      },
      {
        manifest: manifestOf("preset-pack", { contributes: { presets: [{ name: "github", mappings: [{ match: { path: "github" } }], transformsDir: "t" }] } }),
        module: mod((api) => api.registerPresetProvider({ name: "computed", pluginId: "spoofed", mappings: [] })),
      },
      { manifest: manifestOf("consumer-last"), module: mod((api) => void lists.push(api.listPresets().map((p) => `${p.pluginId}/${p.name}`))) },
    ]);
    const loaded = t.exec();
    expect(lists).toEqual([["preset-pack/github"], ["preset-pack/github", "preset-pack/computed"]]);
    expect(loaded.presets().find((p) => p.name === "github")!.transformsDir).toBe(path.join(t.root, "p1", "t"));
  });

  it("registers plugin channels and refuses a duplicate or built-in id", () => {
    const delivered: string[] = [];
    const t = run([
      {
        manifest: manifestOf("chan"),
        module: mod((api) => api.registerChannel!({ id: "workspace_chat_plugin", deliver: (r) => void delivered.push(r.text) })),
      },
      { manifest: manifestOf("dup"), module: mod((api) => api.registerChannel!({ id: "workspace_chat_plugin", deliver: () => {} })) },
      { manifest: manifestOf("builtin"), module: mod((api) => api.registerChannel!({ id: "bot_chat", deliver: () => {} })) },
    ]);
    const loaded = t.exec();
    expect(loaded.reports.map((r) => [r.id, r.status, r.reason])).toEqual([
      ["chan", "active", undefined],
      ["dup", "broken", 'channel "workspace_chat_plugin" is already provided'],
      ["builtin", "broken", 'channel "bot_chat" is already provided'],
    ]);
    expect(t.channels.list()).toContain("workspace_chat_plugin");
  });

  it("collects services and CLI registrars, and deactivates in reverse order", async () => {
    const order: string[] = [];
    const t = run([
      {
        manifest: manifestOf("a"),
        module: mod(
          (api) => {
            api.registerService({ id: "a.svc", start: () => {}, stop: () => {} });
            api.registerCli(() => {});
          },
          () => void order.push("a"),
        ),
      },
      {
        manifest: manifestOf("b"),
        module: mod(
          () => {},
          () => void order.push("b"),
        ),
      },
    ]);
    const loaded = t.exec();
    expect(loaded.services.map((s) => [s.id, s.pluginId])).toEqual([["a.svc", "a"]]);
    expect(loaded.clis.map((c) => c.pluginId)).toEqual(["a"]);
    await loaded.deactivate();
    expect(order).toEqual(["b", "a"]);
  });
});
