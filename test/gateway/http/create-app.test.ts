import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { EventEmitter } from "eventemitter3";
import request from "supertest";
import type { HostEvents } from "../../../src/host-contract/host-api";
import type { HttpRouteHandler } from "../../../src/host-contract/http-route";
import { writeJson } from "../../../src/host-contract/json-response";
import { resolveGatewayConfig } from "../../../src/gateway/config/load-config";
import { createGatewayApp } from "../../../src/gateway/http/create-app";
import { scrubPaths } from "../../../src/gateway/http/public-plugin-report";
import { createGatewayLogger } from "../../../src/gateway/logger";
import { discoverPlugins } from "../../../src/gateway/plugins/discover";
import { loadPlugins, type PluginReport } from "../../../src/gateway/plugins/plugin-loader";
import { openPluginState } from "../../../src/gateway/plugins/plugin-state";
import { createCliRuntime } from "../../../src/gateway/runtime";
import { expectCleanBody } from "../../helpers/expect-clean";
import { manifestOf, tmpDir, writePlugin } from "../plugins/plugin-fixtures";

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function app(authToken?: string) {
  const hooks: HttpRouteHandler = (req, res, context) => {
    if (req.url === "/hooks/boom") throw new Error("secret internal detail");
    writeJson(res, 200, { ok: true, url: req.url, client: context.clientAddress });
  };
  return createGatewayApp({ routes: [{ prefix: "/hooks", handler: hooks, pluginId: "p" }], authToken, logger: quiet, status: () => ({ plugins: [] }) });
}

/** Real load reports: a plugin whose main fails to load, a shadowed copy, a directory without plugin.json. */
function realReports(): { reports: PluginReport[]; root: string } {
  const root = fs.realpathSync(tmpDir("gw-status-"));
  const missing = path.join(root, "nowhere", "lib.js");
  const first = writePlugin(root, "alpha", manifestOf("alpha"), `require(${JSON.stringify(missing)});`);
  const copy = writePlugin(root, "alpha-copy", manifestOf("alpha"));
  const empty = path.join(root, "empty");
  fs.mkdirSync(empty);
  const config = resolveGatewayConfig({ gateway: { stateDir: "state" } }, { configPath: path.join(root, "gateway.config.json"), configDir: root });
  const discovered = discoverPlugins({ paths: [first, copy, empty], installedDir: path.join(root, "none"), state: openPluginState(config.stateDir) });
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const { reports } = loadPlugins({
    config,
    discovered,
    runtime: createCliRuntime({ models: [] }),
    events: new EventEmitter<HostEvents>(),
    logger: createGatewayLogger("error", sink),
  });
  return { reports, root };
}

describe("gateway app", () => {
  it("mounts a plugin under its prefix; the plugin sees URLs relative to it", async () => {
    const res = await request(app()).post("/hooks/wake").expect(200);
    // The node-level handler (host API 2.0) gets the URL as received and the client's address.
    expect(res.body).toEqual({ ok: true, url: "/hooks/wake", client: expect.stringMatching(/127\.0\.0\.1$/) });
  });

  it.each(["/hooksX/wake", "/hooksX", "/HOOKS/wake", "/other"])("does not route %s to the plugin (404 JSON)", async (p) => {
    const res = await request(app()).post(p).expect(404);
    expect(res.body).toEqual({ ok: false, code: "not_found", error: "No route matches this path." });
  });

  it("every gateway response carries X-Request-Id (SPEC §4.2)", async () => {
    let n = 0;
    const a = createGatewayApp({ routes: [], logger: quiet, status: () => ({}), idGen: () => `gw-${++n}` });
    expect((await request(a).get("/healthz").expect(200)).headers["x-request-id"]).toBe("gw-1");
    expect((await request(a).post("/nowhere").expect(404)).headers["x-request-id"]).toBe("gw-2");
    expect((await request(a).get("/api/status").expect(403)).headers["x-request-id"]).toBe("gw-3");
  });

  it("answers /healthz", async () => {
    expect((await request(app()).get("/healthz").expect(200)).body).toEqual({ ok: true });
  });

  it("while stopping: /healthz is 503 shutting_down with Retry-After, and every response closes its connection", async () => {
    let stopping = false;
    const hooks: HttpRouteHandler = (_req, res) => writeJson(res, 200, { ok: true });
    const a = createGatewayApp({
      routes: [{ prefix: "/hooks", handler: hooks, pluginId: "p" }],
      logger: quiet,
      status: () => ({}),
      isStopping: () => stopping,
    });
    expect((await request(a).get("/healthz")).status).toBe(200);
    stopping = true;
    const health = await request(a).get("/healthz");
    expect(health.status).toBe(503);
    expect(health.body).toEqual({ ok: false, code: "shutting_down", error: "The gateway is shutting down; retry later." });
    expect(health.headers["retry-after"]).toBe("5");
    expect(health.headers.connection).toBe("close");
    const hook = await request(a).post("/hooks/wake");
    expect(hook.status).toBe(200);
    expect(hook.headers.connection).toBe("close");
  });

  it("guards /api/status with gateway.auth.token", async () => {
    const a = app("operator-token-123");
    expect((await request(a).get("/api/status").expect(401)).body.code).toBe("unauthorized");
    expect((await request(a).get("/api/status").set("authorization", "Bearer wrong").expect(401)).body.code).toBe("unauthorized");
    expect((await request(a).get("/api/status").set("authorization", "Bearer operator-token-123").expect(200)).body).toEqual({ ok: true, plugins: [] });
    expect((await request(app()).get("/api/status").set("authorization", "Bearer x").expect(403)).body.code).toBe("forbidden");
  });

  it("renders an unhandled route error as 500 without details", async () => {
    const res = await request(app()).post("/hooks/boom").expect(500);
    expect(res.body).toEqual({ ok: false, code: "internal_error", error: "Internal error." });
    expect(JSON.stringify(res.body)).not.toContain("secret");
  });

  describe("GET /api/status shows plugin reports without internal paths (SPEC §4.2)", () => {
    it("drops the directory and replaces every path in a reason with <path>", async () => {
      const { reports, root } = realReports();
      // The reports themselves (journal, log) do carry paths: that is what must not leak.
      expect(JSON.stringify(reports)).toContain(root);
      const a = createGatewayApp({ routes: [], authToken: "operator-token-123", logger: quiet, status: () => ({ plugins: reports, channels: ["cli"] }) });
      const res = await request(a).get("/api/status").set("authorization", "Bearer operator-token-123").expect(200);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(root);
      expect(text).not.toContain(fs.realpathSync(require("node:os").tmpdir()));
      expect(res.body.channels).toEqual(["cli"]);
      const [alpha, copy, empty] = res.body.plugins as Array<Record<string, unknown>>;
      expect(Object.keys(alpha!).sort()).toEqual(["id", "name", "origin", "reason", "status", "version"]);
      expect(alpha).toMatchObject({ id: "alpha", name: "Plugin alpha", version: "1.0.0", origin: "path", status: "broken" });
      expect(alpha!.reason).toMatch(/^cannot load index\.js: Cannot find module '<path>'( from '<path>')?$/);
      expect(copy).toEqual({
        id: "alpha",
        name: "Plugin alpha",
        version: "1.0.0",
        origin: "path",
        status: "shadowed",
        reason: "shadowed by path copy in <path>",
      });
      expect(empty).toEqual({ origin: "path", status: "broken", reason: "no plugin.json in <path>" });
    });
  });

  describe("scrubPaths", () => {
    it.each([
      ["Cannot find module '/srv/app/lib.js'", "Cannot find module '<path>'"],
      ["no plugin.json in /var/lib/gw/plugins/x", "no plugin.json in <path>"],
      ["bad file:///srv/app/x.mjs here", "bad <path> here"],
      ["cannot open C:\\gw\\plugins\\x", "cannot open <path>"],
      ["Cannot find module '/a/x.js' from '../../tmp/p/index.js'", "Cannot find module '<path>' from '<path>'"],
      ["see http://example.com/docs and/or retry", "see http://example.com/docs and/or retry"],
      ['plugin.json: main "dist/index.js" does not exist', 'plugin.json: main "dist/index.js" does not exist'],
    ])("%s", (input, expected) => expect(scrubPaths(input)).toBe(expected));
  });

  it("no gateway response (healthz, status, 401, 403, 404, 500) contains a stack, a token or a path", async () => {
    const operator = "operator-token-0123456789";
    const { reports } = realReports();
    const hooks: HttpRouteHandler = () => {
      throw new Error(`EACCES: permission denied, open '${path.join(process.cwd(), "state", "runs.db")}'`);
    };
    const a = createGatewayApp({
      routes: [{ prefix: "/hooks", handler: hooks, pluginId: "p" }],
      authToken: operator,
      logger: quiet,
      status: () => ({ plugins: reports }),
    });
    const closed = createGatewayApp({ routes: [], logger: quiet, status: () => ({ plugins: reports }) });
    const responses = [
      await request(a).get("/healthz"),
      await request(a).get("/api/status").set("authorization", `Bearer ${operator}`),
      await request(a).get("/api/status").set("authorization", `Bearer ${operator}x`),
      await request(closed).get("/api/status").set("authorization", `Bearer ${operator}`),
      await request(a).post(`/nowhere/${encodeURIComponent(process.cwd())}?token=${operator}`),
      await request(a).post("/hooks/boom"),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 401, 403, 404, 500]);
    for (const r of responses) expectCleanBody(r.text, [operator]);
  });
});
