/**
 * The adapter against a stand-in for OpenClaw's plugin API (the real gateway is
 * driven by test/e2e-openclaw/): what `register(api)` registers, the route serving
 * through OpenClaw's plain node:http request, the service starting the plugin, and
 * start errors naming OpenClaw's keys.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import request from "supertest";
import plugin, { CONVERSATION_ACCESS_MISSING, NOT_AVAILABLE_IN_OPENCLAW } from "../../../src/hosts/openclaw/plugin-entry";
import type { OpenClawHttpRoute, OpenClawPluginApi, OpenClawService } from "../../../src/hosts/openclaw/openclaw-api";
import * as inspectorRoute from "../../../src/inspector/inspector-route";
import { tempDir } from "../../helpers/temp-dir";
import { until } from "../../helpers/until";

const TOKEN = "our-hook-token-0123456789";

interface Fake {
  api: OpenClawPluginApi;
  /** The routes of plugin auth (the hooks); the operator surface of gateway auth is `gatewayRoutes`. */
  routes: OpenClawHttpRoute[];
  gatewayRoutes: OpenClawHttpRoute[];
  tabs: unknown[];
  services: OpenClawService[];
  clis: string[];
  events: Array<{ text: string; sessionKey: string }>;
  heartbeats: unknown[];
  logs: string[];
}

function fakeOpenClaw(stateDir: string, pluginConfig: Record<string, unknown> | undefined): Fake {
  const fake: Fake = { routes: [], gatewayRoutes: [], tabs: [], services: [], clis: [], events: [], heartbeats: [], logs: [] } as unknown as Fake;
  const log = (level: string) => (m: string) => void fake.logs.push(`${level} ${m}`);
  fake.api = {
    id: "inbound-webhooks",
    registrationMode: "full",
    config: {
      gateway: { port: 19001 },
      agents: { defaults: { model: { primary: "fake/fake-1" } } },
      plugins: { entries: { "inbound-webhooks": { enabled: true, config: pluginConfig } } },
    },
    ...(pluginConfig ? { pluginConfig } : {}),
    logger: { info: log("info"), warn: log("warn"), error: log("error") },
    runtime: {
      version: "2026.9.6",
      state: { resolveStateDir: () => stateDir },
      system: {
        enqueueSystemEvent: (text, opts) => (fake.events.push({ text, sessionKey: opts.sessionKey }), true),
        requestHeartbeat: (opts) => void fake.heartbeats.push(opts),
      },
      subagent: {
        run: async () => ({ runId: "oc-1" }),
        waitForRun: async () => ({ status: "ok", endedAt: 1 }),
        getSessionMessages: async () => ({ messages: [{ role: "assistant", content: "done" }] }),
      },
    },
    // The frame's cookie-free channel (auth plugin) is the operator surface's too: not among the hooks' routes.
    registerHttpRoute: (r) => void (r.auth === "gateway" || r.path === "/inbound-webhooks-frame" ? fake.gatewayRoutes : fake.routes).push(r),
    session: { controls: { registerControlUiDescriptor: (d) => void fake.tabs.push(d) } },
    registerService: (s) => void fake.services.push(s),
    registerCli: (_r, opts) => void fake.clis.push(...(opts?.descriptors ?? []).map((d) => d.name)),
  };
  return fake;
}

/** OpenClaw's side of a route: a node:http server handing each request to the route's handler. */
function serve(route: OpenClawHttpRoute): http.Server {
  return http.createServer((req, res) => {
    if (!req.url?.startsWith(route.path)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    void route.handler(req, res);
  });
}

describe("the OpenClaw entry", () => {
  let state: ReturnType<typeof tempDir>;
  beforeEach(() => (state = tempDir("iw-openclaw-")));
  afterEach(() => state.remove());

  it("serves /inbound-webhooks/metrics, /api/status and the inspector's pages (read-only) under gateway auth, and a Webhooks tab of the Control UI", async () => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN });
    plugin.register(fake.api);
    expect(fake.gatewayRoutes.map((r) => ({ path: r.path, match: r.match, auth: r.auth }))).toEqual([
      { path: "/inbound-webhooks", match: "prefix", auth: "gateway" },
      { path: "/inbound-webhooks-frame", match: "prefix", auth: "plugin" },
    ]);
    expect(fake.tabs).toEqual([
      expect.objectContaining({
        surface: "tab",
        id: "webhooks",
        label: "Webhooks",
        slug: "webhooks-inspector",
        path: "/inbound-webhooks/ui",
        requiredScopes: ["operator.read"],
      }),
    ]);
    const hooks = serve(fake.routes[0]!).listen(0, "127.0.0.1");
    const operator = serve(fake.gatewayRoutes[0]!).listen(0, "127.0.0.1");
    try {
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      expect((await request(hooks).post("/webhooks/wake").set("Authorization", `Bearer ${TOKEN}`).send({ text: "disk almost full" })).status).toBe(200);
      const metrics = await request(operator).get("/inbound-webhooks/metrics");
      expect([metrics.status, metrics.headers["content-type"]]).toEqual([200, "text/plain; version=0.0.4; charset=utf-8"]);
      expect(metrics.text).toMatch(/^inbound_webhooks_\w+\{[^}]*hook="wake"[^}]*\} 1$/m);
      expect(metrics.text).toContain("process_cpu_user_seconds_total");
      // The ledger records a request once its answer is written (its group commit may come a turn later).
      const ledgerEntries = async () => (await request(operator).get("/inbound-webhooks/api/status")).body?.hooks?.ledgerEntries;
      await until(async () => (await ledgerEntries()) === 1, "the wake in the ledger", { timeoutMs: 10_000, intervalMs: 20 });
      const status = await request(operator).get("/inbound-webhooks/api/status");
      expect(status.status).toBe(200);
      expect(status.body).toEqual(expect.objectContaining({ ok: true, hooks: expect.objectContaining({ ledgerEntries: 1 }), dashboard: expect.any(Object) }));
      const page = await request(operator).get("/inbound-webhooks/ui/deliveries");
      expect(page.status).toBe(200);
      expect(page.text).toContain('href="/inbound-webhooks/ui/deliveries/');
      expect(fake.gatewayRoutes.map((r) => [r.path, r.auth])).toEqual([
        ["/inbound-webhooks", "gateway"],
        ["/inbound-webhooks-frame", "plugin"],
      ]);
      // The sandboxed frame's own requests may carry no cookie: its assets and live feed come from the cookie-free channel (frame-channel.ts).
      expect(page.text).toContain('<link rel="stylesheet" href="/inbound-webhooks-frame/assets/dashboard.css">');
      expect(page.text).toMatch(/data-live="\/inbound-webhooks-frame\/live\/\d+\.[\w-]+\/api\/events"/);
      expect(page.headers["content-security-policy"]).toContain("frame-ancestors 'self'");
      const id = /href="\/inbound-webhooks\/ui\/deliveries\/([^"]+)"/.exec(page.text)![1]!;
      const one = await request(operator).get(`/inbound-webhooks/ui/deliveries/${id}`);
      expect(one.text).toContain(`openclaw inbound-webhooks deliveries replay ${id}`);
      expect(one.text).not.toContain('/replay"');
      expect((await request(operator).get("/inbound-webhooks/ui/assets/dashboard.css")).status).toBe(200);
      const post = await request(operator).post(`/inbound-webhooks/ui/deliveries/${id}/replay`);
      expect([post.status, post.headers.allow]).toEqual([405, "GET, HEAD"]);
      expect((await request(operator).post("/inbound-webhooks/metrics")).status).toBe(405);
      expect((await request(operator).get("/inbound-webhooks/nothing")).status).toBe(404);
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      hooks.close();
      operator.close();
    }
  });

  // Regression: OpenClaw's CLI registration ("cli-metadata", every `openclaw inbound-webhooks …` command) built the
  // inspector's pages, loading Express, though a CLI serves no route (0.5 s of the command under the profiler).
  it("a CLI registration built the inspector's pages (loading Express) at every command: only the serving one does", () => {
    const pages = jest.spyOn(inspectorRoute, "createInspectorRoute");
    try {
      const cli = fakeOpenClaw(state.dir, { token: TOKEN });
      plugin.register({ ...cli.api, registrationMode: "cli-metadata" });
      expect(pages).not.toHaveBeenCalled();
      expect(cli.clis).toEqual(["inbound-webhooks"]);
      expect(cli.gatewayRoutes).toEqual([]);
      plugin.register(fakeOpenClaw(state.dir, { token: TOKEN }).api);
      expect(pages).toHaveBeenCalledTimes(1);
    } finally {
      pages.mockRestore();
    }
  });

  it("registers a prefix route with plugin auth at /webhooks, one service and `openclaw inbound-webhooks`", () => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN });
    plugin.register(fake.api);
    expect(fake.routes.map((r) => ({ path: r.path, match: r.match, auth: r.auth }))).toEqual([{ path: "/webhooks", match: "prefix", auth: "plugin" }]);
    expect(fake.services.map((s) => s.id)).toEqual(["inbound-webhooks"]);
    expect(fake.clis).toEqual(["inbound-webhooks"]);
  });

  (process.platform === "win32" ? it.skip : it)(
    "our data dir inside OpenClaw's state dir was created with the umask (0755): now 0700 with a 0600 database, OpenClaw's own dir untouched and unreported",
    async () => {
      fs.chmodSync(state.dir, 0o755);
      const fake = fakeOpenClaw(state.dir, { token: TOKEN });
      plugin.register(fake.api);
      const dataDir = path.join(state.dir, "inbound-webhooks");
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      try {
        const mode = (p: string) => fs.statSync(p).mode & 0o777;
        expect(mode(dataDir)).toBe(0o700);
        expect(mode(path.join(dataDir, "inbound-webhooks.sqlite"))).toBe(0o600);
        expect(mode(state.dir)).toBe(0o755);
        expect(fake.logs.filter((l) => l.includes("open to other users"))).toEqual([]);
      } finally {
        await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      }
    },
  );

  (process.platform === "win32" ? it.skip : it)(
    "an existing data dir of ours open to other users (0755) was used silently: one warning with the chmod command, mode left",
    async () => {
      const dataDir = path.join(state.dir, "inbound-webhooks");
      fs.mkdirSync(dataDir);
      fs.chmodSync(dataDir, 0o755);
      const fake = fakeOpenClaw(state.dir, { token: TOKEN });
      plugin.register(fake.api);
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      try {
        expect(fake.logs.filter((l) => l.includes("open to other users"))).toEqual([
          `warn the plugin data dir ${dataDir} is open to other users (mode 0755): it holds stored payloads; run: chmod 700 ${dataDir}`,
        ]);
        expect(fs.statSync(dataDir).mode & 0o777).toBe(0o755);
      } finally {
        await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      }
    },
  );

  // Issue 32: OpenClaw keeps system events in memory, and a wake answered 200 just before a stop never reached the model.
  it("a wake answered 200 is kept until OpenClaw's llm_input of the main session carries it, and handed to OpenClaw again at every start until then", async () => {
    const hooks = new Map<string, (e: Record<string, unknown>, ctx?: Record<string, unknown>) => unknown>();
    const withHooks = (fake: Fake): Fake => {
      fake.api.on = (name, handler) => void hooks.set(name, handler);
      return fake;
    };
    const ctx = { stateDir: state.dir, logger: { info: () => undefined, warn: () => undefined, error: () => undefined } };
    const first = withHooks(fakeOpenClaw(state.dir, { token: TOKEN }));
    plugin.register(first.api);
    await first.services[0]!.start(ctx);
    const server = serve(first.routes[0]!).listen(0, "127.0.0.1");
    try {
      const res = await request(server).post("/webhooks/wake").set("Authorization", `Bearer ${TOKEN}`).send({ text: "kept across the stop" });
      expect(res.status).toBe(200);
    } finally {
      server.close();
      await first.services[0]!.stop?.(ctx);
    }
    // OpenClaw stopped before a heartbeat took it (its events were in memory): the next start hands it again.
    const second = withHooks(fakeOpenClaw(state.dir, { token: TOKEN }));
    plugin.register(second.api);
    await second.services[0]!.start(ctx);
    try {
      expect(second.events.map((e) => [e.sessionKey, e.text.includes("kept across the stop")])).toEqual([["agent:main:main", true]]);
      expect(second.heartbeats).toEqual([expect.objectContaining({ intent: "immediate", reason: "hook:wake" })]);
      // The heartbeat's turn carries it to the model (OpenClaw's llm_input hook): forgotten, not handed at the next start.
      hooks.get("llm_input")!(
        { runId: "r", sessionId: "s", provider: "fake", model: "m", prompt: `System: ${second.events[0]!.text}`, historyMessages: [] },
        {
          sessionKey: "agent:main:main",
        },
      );
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await second.services[0]!.stop?.(ctx);
    }
    const third = withHooks(fakeOpenClaw(state.dir, { token: TOKEN }));
    plugin.register(third.api);
    await third.services[0]!.start(ctx);
    try {
      expect(third.events).toEqual([]);
    } finally {
      await third.services[0]!.stop?.(ctx);
    }
  });

  it("serves /webhooks/wake through OpenClaw's node:http request once its service started: the event goes to agent:main:main", async () => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN });
    plugin.register(fake.api);
    const server = serve(fake.routes[0]!).listen(0, "127.0.0.1");
    try {
      const before = await request(server).post("/webhooks/wake").set("Authorization", `Bearer ${TOKEN}`).send({ text: "too early" });
      expect(before.status).toBe(503);
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      const res = await request(server).post("/webhooks/wake").set("Authorization", `Bearer ${TOKEN}`).send({ text: "disk almost full" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true, mode: "now" });
      expect(fake.events).toHaveLength(1);
      expect(fake.events[0]!.sessionKey).toBe("agent:main:main");
      expect(fake.events[0]!.text).toContain("disk almost full");
      expect(fake.heartbeats).toEqual([expect.objectContaining({ source: "hook", intent: "immediate", reason: "hook:wake", agentId: "main" })]);
      // OpenClaw's prefix match may hand over more than the plugin's path: the plugin answers it with its own 404.
      const other = await request(server).post("/webhooksX/wake").set("Authorization", `Bearer ${TOKEN}`).send({ text: "x" });
      expect(other.status).toBe(404);
      expect(other.body).toEqual({ ok: false, code: "not_found", error: "No hook matches this path: it is not below /webhooks." });
      expect(fake.logs.some((l) => l.includes(NOT_AVAILABLE_IN_OPENCLAW[0]!))).toBe(true);
      // OpenClaw blocks the llm_input hook unless the entry allows conversation access: said once at start.
      expect(fake.logs.filter((l) => l.includes(CONVERSATION_ACCESS_MISSING))).toHaveLength(1);
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      server.close();
    }
  });

  it("a preset plugin installed into OpenClaw (its extensions dir) contributes the preset a mapping uses: /webhooks/alertmanager starts a run; off, the preset is unknown", async () => {
    const example = path.resolve(__dirname, "../../../examples/preset-plugin-alertmanager");
    fs.cpSync(example, path.join(state.dir, "extensions", "alertmanager-preset"), { recursive: true });
    const fake = fakeOpenClaw(state.dir, { token: TOKEN, presets: ["alertmanager"] });
    plugin.register(fake.api);
    const server = serve(fake.routes[0]!).listen(0, "127.0.0.1");
    try {
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      const firing = fs.readFileSync(path.join(example, "fixtures", "firing.json"), "utf8");
      const res = await request(server).post("/webhooks/alertmanager").set("Authorization", `Bearer ${TOKEN}`).type("json").send(firing);
      expect({ status: res.status, mapping: res.body.mapping }).toEqual({ status: 202, mapping: "alertmanager" });
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      server.close();
    }
    const off = fakeOpenClaw(state.dir, { token: TOKEN, presets: ["alertmanager"] });
    const api = {
      ...off.api,
      config: { ...off.api.config, plugins: { entries: { ...(off.api.config.plugins as any).entries, "alertmanager-preset": { enabled: false } } } },
    };
    expect(() => plugin.register(api)).toThrow(/plugins\.entries\.inbound-webhooks\.config\.presets\[0\] /);
  });

  it("a 413 inside OpenClaw named hooks.maxBodyBytes (OpenClaw's own key for its /hooks): it names the plugin's section key", async () => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN, maxBodyBytes: 100 });
    plugin.register(fake.api);
    const server = serve(fake.routes[0]!).listen(0, "127.0.0.1");
    try {
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      const res = await request(server)
        .post("/webhooks/wake")
        .set("Authorization", `Bearer ${TOKEN}`)
        .send({ text: "x".repeat(200) });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({
        ok: false,
        code: "payload_too_large",
        error: "The request body is larger than plugins.entries.inbound-webhooks.config.maxBodyBytes allows (100 bytes).",
      });
      expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.text));
      const path = await request(server).post("/webhooks/hooks.json").set("Authorization", `Bearer ${TOKEN}`).send({});
      expect(path.body.error).toContain("/webhooks/hooks.json");
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      server.close();
    }
  });

  // The adapter renamed the bytes it sent; the ledger kept the plugin's answer naming hooks.allowQueryToken.
  it("a refusal inside OpenClaw kept in the ledger named hooks.allowQueryToken (OpenClaw's own key): read back, it names the plugin's section key", async () => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN, allowQueryToken: false });
    plugin.register(fake.api);
    const server = serve(fake.routes[0]!).listen(0, "127.0.0.1");
    try {
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      const sentence = "The token must be sent in a header; ?token= is disabled (plugins.entries.inbound-webhooks.config.allowQueryToken is false).";
      const res = await request(server).post(`/webhooks/wake?token=${TOKEN}`).send({});
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { ok: false, code: "query_token_not_allowed", error: sentence } });
      let listed: Array<{ id: string }> = [];
      const list = async () =>
        (listed = (await request(server).get("/webhooks/deliveries?hook=wake&status=400&limit=1").set("Authorization", `Bearer ${TOKEN}`)).body.deliveries);
      await until(async () => (await list()).length === 1, "the refusal in the ledger", { timeoutMs: 5000, intervalMs: 20 });
      const stored = await request(server).get(`/webhooks/deliveries/${listed[0]!.id}`).set("Authorization", `Bearer ${TOKEN}`);
      expect(stored.body.delivery.response).toEqual({ ok: false, code: "query_token_not_allowed", error: sentence });
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      server.close();
    }
  });

  it("refuses an explicit channel OpenClaw does not offer with 400, naming what is offered", async () => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN });
    plugin.register(fake.api);
    const server = serve(fake.routes[0]!).listen(0, "127.0.0.1");
    try {
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      const res = await request(server).post("/webhooks/agent").set("Authorization", `Bearer ${TOKEN}`).send({ message: "hi", channel: "phone_chat" });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain("offers no other channels");
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      server.close();
    }
  });

  // OpenClaw refuses every provider/model override unless subagent.allowModelOverride is true. With no
  // agents.defaults.model configured the allow-list came out empty ("not enforced"): the request got 202
  // and its run failed later ("provider/model overrides are not authorized"), instead of 400 at once.
  it("refuses a named model with 400 model_not_allowed when OpenClaw admits no override and configures no agent model (was: 202, then a failed run)", async () => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN });
    const api = { ...fake.api, config: { ...fake.api.config, agents: {} } };
    plugin.register(api);
    const server = serve(fake.routes[0]!).listen(0, "127.0.0.1");
    try {
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      const res = await request(server).post("/webhooks/agent").set("Authorization", `Bearer ${TOKEN}`).send({ message: "hi", model: "openai/gpt-x" });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("model_not_allowed");
      expect(res.body.error).toContain("plugins.entries.inbound-webhooks.subagent.allowModelOverride");
      const plain = await request(server).post("/webhooks/agent").set("Authorization", `Bearer ${TOKEN}`).send({ message: "hi" });
      expect(plain.status).toBe(202);
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      server.close();
    }
  });

  it.each([
    [
      {},
      "OpenClaw admits only the agent's agents.defaults.model unless plugins.entries.inbound-webhooks.subagent.allowModelOverride is true); use one of: fake/fake-1",
    ],
    [
      { subagent: { allowModelOverride: true, allowedModels: ["fake/fake-2"] } },
      "plugins.entries.inbound-webhooks.subagent.allowedModels); use one of: fake/fake-2, fake/fake-1",
    ],
  ])("a refused model names the OpenClaw key that allows it, not the embedded gateway's agents.defaults.models (entry %j)", async (entry, sentence) => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN });
    const entries = { "inbound-webhooks": { enabled: true, config: { token: TOKEN }, ...entry } };
    plugin.register({ ...fake.api, config: { ...fake.api.config, plugins: { entries } } });
    const server = serve(fake.routes[0]!).listen(0, "127.0.0.1");
    try {
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      const res = await request(server).post("/webhooks/agent").set("Authorization", `Bearer ${TOKEN}`).send({ message: "hi", model: "openai/gpt-x" });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("model_not_allowed");
      expect(res.body.error).toBe(`model is not in the allowed models list (${sentence}.`);
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      server.close();
    }
  });

  // While OpenClaw drains for a restart or a stop it refuses every call, with a request error marked retryable; the
  // adapter took that refusal of `agent.wait` for the run's end, and the run was recorded failed (its OpenClaw run went
  // on, or was cut off and resumed by OpenClaw's own restart recovery), instead of interrupted as after any restart.
  it.each([
    [false, "interrupted", "plugins.entries.inbound-webhooks.config.runs.retryInterrupted"],
    [true, "succeeded", "done"],
  ])(
    "a run cut off by an OpenClaw restart was recorded failed ('agent.wait unavailable during gateway restart'), not interrupted (retryInterrupted %j → %s)",
    async (retryInterrupted, status, named) => {
      const config = { token: TOKEN, runs: { shutdownGraceSeconds: 0.1, retryInterrupted } };
      const before = fakeOpenClaw(state.dir, config);
      let refusals = 0;
      before.api.runtime.subagent.waitForRun = async () => {
        refusals++;
        // OpenClaw 2026.9.6's refusal while it drains (GatewayClientRequestError).
        throw Object.assign(new Error("agent.wait unavailable during gateway restart"), {
          name: "GatewayClientRequestError",
          code: "UNAVAILABLE",
          retryable: true,
          retryAfterMs: 1000,
          details: { method: "agent.wait", reason: "gateway-restarting", phase: "accepting" },
        });
      };
      plugin.register(before.api);
      const ctx = { stateDir: state.dir, logger: before.api.logger };
      const server = serve(before.routes[0]!).listen(0, "127.0.0.1");
      let runId = "";
      try {
        await before.services[0]!.start(ctx);
        const res = await request(server).post("/webhooks/agent").set("Authorization", `Bearer ${TOKEN}`).send({ message: "summarise" });
        expect(res.status).toBe(202);
        runId = res.body.runId;
        await until(() => refusals > 0, "OpenClaw to refuse agent.wait", { timeoutMs: 10_000, intervalMs: 20 });
      } finally {
        // OpenClaw stops the plugin's service as it closes; then its process ends.
        await before.services[0]!.stop?.(ctx);
        server.close();
      }
      // The next OpenClaw process: no OpenClaw run of this process goes on (nothing to join).
      delete (globalThis as Record<symbol, unknown>)[Symbol.for("inbound-webhooks.openclaw.turns")];
      const after = fakeOpenClaw(state.dir, config);
      plugin.register(after.api);
      const next = serve(after.routes[0]!).listen(0, "127.0.0.1");
      try {
        await after.services[0]!.start(ctx);
        const show = async () =>
          (await request(next).get(`/webhooks/runs/${runId}`).set("Authorization", `Bearer ${TOKEN}`)).body.run as { status: string; summary?: string };
        await until(async () => !["queued", "running"].includes((await show()).status), "the run to be recovered", { timeoutMs: 10_000, intervalMs: 20 });
        const run = await show();
        expect({ status: run.status, summary: run.summary }).toEqual({ status, summary: expect.stringContaining(named) });
      } finally {
        await after.services[0]!.stop?.(ctx);
        next.close();
      }
    },
  );

  it("fails registration without a token, naming plugins.entries.inbound-webhooks.config.token", () => {
    const fake = fakeOpenClaw(state.dir, undefined);
    expect(() => plugin.register(fake.api)).toThrow(
      "plugins.entries.inbound-webhooks.config.token is required when plugins.entries.inbound-webhooks.config.enabled is true",
    );
  });

  it("a missing token hid the unknown preset until the next start: registration fails naming both, in OpenClaw's keys, and registers nothing", () => {
    const fake = fakeOpenClaw(state.dir, { enabled: true, presets: ["gihtub"] });
    let message = "";
    try {
      plugin.register(fake.api);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.split("\n")).toEqual([
      "plugins.entries.inbound-webhooks.config.token is required when plugins.entries.inbound-webhooks.config.enabled is true",
      'plugins.entries.inbound-webhooks.config.presets[0] names an unknown preset "gihtub"; available presets: mail, github',
    ]);
    expect(fake.routes).toEqual([]);
    expect(fake.services).toEqual([]);
  });

  it("fails its service start on an unset token variable, naming OpenClaw's key (the route keeps answering 503)", async () => {
    delete process.env.IW_OPENCLAW_TEST_TOKEN_UNSET;
    const fake = fakeOpenClaw(state.dir, { token: { env: "IW_OPENCLAW_TEST_TOKEN_UNSET" } });
    plugin.register(fake.api);
    await expect(fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger })).rejects.toThrow(
      /^plugins\.entries\.inbound-webhooks\.config\.token /,
    );
  });

  it('an unset token variable answered 503 shutting_down "not started yet, or stopped" (the cause only in the log): 503 not_configured naming the key', async () => {
    delete process.env.IW_OPENCLAW_TEST_TOKEN_UNSET;
    const fake = fakeOpenClaw(state.dir, { token: { env: "IW_OPENCLAW_TEST_TOKEN_UNSET" } });
    plugin.register(fake.api);
    await Promise.resolve(fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger })).catch(() => undefined);
    const server = serve(fake.routes[0]!).listen(0, "127.0.0.1");
    try {
      const res = await request(server).post("/webhooks/wake").send({ text: "x" });
      expect({ status: res.status, retryAfter: res.headers["retry-after"], body: res.body }).toEqual({
        status: 503,
        retryAfter: "5",
        body: {
          ok: false,
          code: "not_configured",
          error:
            "The hooks service did not start because of plugins.entries.inbound-webhooks.config.token (the gateway's log names the problem); fix it and restart the gateway.",
        },
      });
      // The variable's name stays in the log: the answer goes to anyone who can reach the route.
      expect(JSON.stringify(res.body)).not.toContain("IW_OPENCLAW_TEST_TOKEN_UNSET");
    } finally {
      server.close();
    }
  });

  // OpenClaw answers every request under its own hooks.path before any plugin route: a plugin path
  // there was registered and logged as served, and never saw a request (was: a silent no-op).
  it.each([
    ["/hooks", undefined],
    ["/hooks/inbound", undefined],
    ["/in", "/in/"],
  ])("refuses path %j while OpenClaw's own hooks serve %j, naming the key (was: registered, and shadowed by OpenClaw's /hooks)", (ours, theirs) => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN, path: ours });
    const api = {
      ...fake.api,
      config: { ...fake.api.config, hooks: { enabled: true, token: "openclaw-own-hook-token-0123", ...(theirs ? { path: theirs } : {}) } },
    };
    expect(() => plugin.register(api)).toThrow(
      `plugins.entries.inbound-webhooks.config.path "${ours}" is inside OpenClaw's own hooks path "${theirs?.replace(/\/$/, "") ?? "/hooks"}" (hooks.path), which OpenClaw answers before any plugin route; choose another path, e.g. "/webhooks"`,
    );
    expect(fake.routes).toEqual([]);
  });

  it("a missing token hid a path inside OpenClaw's hooks path until the next start: registration fails naming both", () => {
    const fake = fakeOpenClaw(state.dir, { path: "/hooks/in" });
    const api = { ...fake.api, config: { ...fake.api.config, hooks: { enabled: true, token: "openclaw-own-hook-token-0123" } } };
    let message = "";
    try {
      plugin.register(api);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.split("\n")).toEqual([
      "plugins.entries.inbound-webhooks.config.token is required when plugins.entries.inbound-webhooks.config.enabled is true",
      'plugins.entries.inbound-webhooks.config.path "/hooks/in" is inside OpenClaw\'s own hooks path "/hooks" (hooks.path), which OpenClaw answers before any plugin route; choose another path, e.g. "/webhooks"',
    ]);
    expect(fake.routes).toEqual([]);
  });

  it.each([
    ["/hooks", { enabled: false }],
    ["/hooksx", { enabled: true, token: "openclaw-own-hook-token-0123" }],
    ["/hooks", { enabled: true, token: "openclaw-own-hook-token-0123", path: "/oc-hooks" }],
  ])("serves path %j beside OpenClaw's hooks %j", (ours, hooks) => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN, path: ours });
    plugin.register({ ...fake.api, config: { ...fake.api.config, hooks } });
    expect(fake.routes.map((r) => r.path)).toEqual([ours]);
  });

  // OpenClaw's agents.defaults.timeoutSeconds is any integer >= 0, 0 meaning no limit; the plugin's own key
  // takes 0 < n <= 86400. A valid OpenClaw config (0, or two days) failed the plugin's registration with
  // "agents.defaults.timeoutSeconds must be greater than 0" (was: the plugin down for OpenClaw's own setting).
  it.each([[0], [172800]])(
    "registers under OpenClaw's agents.defaults.timeoutSeconds %j (was: registration failed on OpenClaw's own valid key)",
    (timeoutSeconds) => {
      const fake = fakeOpenClaw(state.dir, { token: TOKEN });
      const agents = { defaults: { model: { primary: "fake/fake-1" }, timeoutSeconds } };
      expect(() => plugin.register({ ...fake.api, config: { ...fake.api.config, agents } })).not.toThrow();
      expect(fake.routes.map((r) => r.path)).toEqual(["/webhooks"]);
    },
  );

  it("a mapping naming an agent OpenClaw lacks (or one allowedAgentIds leaves out) fails the registration naming the section's key", () => {
    const fake = fakeOpenClaw(state.dir, {
      token: TOKEN,
      allowedAgentIds: ["main"],
      mappings: [
        { id: "a", match: { path: "a" }, messageTemplate: "x", agentId: "ops" },
        { id: "b", match: { path: "b" }, messageTemplate: "x", agentId: "sales" },
      ],
    });
    const api = { ...fake.api, config: { ...fake.api.config, agents: { list: [{ id: "main", default: true }, { id: "ops" }] } } };
    expect(() => plugin.register(api)).toThrow(
      [
        `plugins.entries.inbound-webhooks.config.mappings[0].agentId "ops" is not in plugins.entries.inbound-webhooks.config.allowedAgentIds (use one of: main)`,
        `plugins.entries.inbound-webhooks.config.mappings[1].agentId "sales" is not an agent the gateway knows (the gateway's agents: main, ops)`,
      ].join("\n"),
    );
  });

  it("registers no route when the section sets enabled: false", () => {
    const fake = fakeOpenClaw(state.dir, { enabled: false });
    plugin.register(fake.api);
    expect(fake.routes).toEqual([]);
  });

  it("a log line inside OpenClaw named hooks.enabled (OpenClaw's own hooks section): it names the plugin's section key", async () => {
    const fake = fakeOpenClaw(state.dir, { enabled: false });
    plugin.register(fake.api);
    await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
    await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
    expect(fake.logs).toContain("info [plugin] hooks disabled (plugins.entries.inbound-webhooks.config.enabled is not true); no HTTP listener registered");
    expect(fake.logs.join("\n")).not.toMatch(/(^|[^\w.-])hooks\./m);
  });

  it("every `openclaw inbound-webhooks …` command printed `hooks enabled {…}` twice (OpenClaw registers the plugin twice, starts no service): one line, when the service starts", async () => {
    const fake = fakeOpenClaw(state.dir, { token: TOKEN });
    plugin.register(fake.api);
    plugin.register(fake.api);
    expect(fake.logs.filter((l) => l.includes("hooks enabled"))).toEqual([]);
    await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
    try {
      expect(fake.logs.filter((l) => l.includes("hooks enabled"))).toEqual(['info [plugin] hooks enabled {"path":"/webhooks","mappings":0,"presets":[]}']);
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
    }
  });
});
