/**
 * Replay from inside OpenClaw (SPEC §13): the inspector's operator methods as OpenClaw gateway methods
 * (src/hosts/openclaw/gateway-methods.ts, scope operator.write), the page's `openclaw gateway call` command,
 * and the frame's cookie-free channel (src/hosts/openclaw/frame-channel.ts): assets and a live feed whose
 * capability the page carries. Against a stand-in for OpenClaw's plugin API; the real gateway and browser
 * are test/e2e/openclaw/openclaw-inspector.test.ts.
 */
import http from "node:http";
import request from "supertest";
import plugin from "../../../src/hosts/openclaw/plugin-entry";
import type { OpenClawGatewayMethodHandler, OpenClawHttpRoute, OpenClawPluginApi, OpenClawService } from "../../../src/hosts/openclaw/openclaw-api";
import { createFeedCapability, FEED_CAPABILITY_MS } from "../../../src/hosts/openclaw/frame-channel";
import { tempDir } from "../../helpers/temp-dir";
import { until } from "../../helpers/until";

const TOKEN = "our-hook-token-0123456789";

function fakeOpenClaw(stateDir: string) {
  const routes: OpenClawHttpRoute[] = [];
  const services: OpenClawService[] = [];
  const methods = new Map<string, { handler: OpenClawGatewayMethodHandler; scope?: string }>();
  const config = { token: TOKEN };
  const api: OpenClawPluginApi = {
    id: "inbound-webhooks",
    registrationMode: "full",
    config: { gateway: { port: 19001 }, plugins: { entries: { "inbound-webhooks": { enabled: true, config } } } },
    pluginConfig: config,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    runtime: {
      state: { resolveStateDir: () => stateDir },
      system: { enqueueSystemEvent: () => true, requestHeartbeat: () => {} },
      subagent: {
        run: async () => ({ runId: "oc-1" }),
        waitForRun: async () => ({ status: "ok", endedAt: 1 }),
        getSessionMessages: async () => ({ messages: [] }),
      },
    },
    registerHttpRoute: (r) => void routes.push(r),
    registerGatewayMethod: (name, handler, opts) => void methods.set(name, { handler, ...(opts?.scope ? { scope: opts.scope } : {}) }),
    session: { controls: { registerControlUiDescriptor: () => {} } },
    registerService: (s) => void services.push(s),
    registerCli: () => {},
  };
  /** A call as OpenClaw's dispatcher makes it: the handler's respond(ok, payload, error). */
  const call = (name: string, params: Record<string, unknown>) =>
    new Promise<{ ok: boolean; payload?: any; error?: any }>((resolve) => {
      void methods.get(name)!.handler({ params, client: { clientIp: "127.0.0.1" }, respond: (ok, payload, error) => resolve({ ok, payload, error }) });
    });
  return { api, routes, services, methods, call, route: (path: string) => routes.find((r) => r.path === path)! };
}

function serve(route: OpenClawHttpRoute): http.Server {
  return http.createServer((req, res) => void route.handler(req, res));
}

async function listening(route: OpenClawHttpRoute): Promise<http.Server> {
  const server = serve(route);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

describe("replay inside OpenClaw: a gateway method, and the frame's cookie-free channel", () => {
  let state: ReturnType<typeof tempDir>;
  beforeEach(() => (state = tempDir("iw-openclaw-methods-")));
  afterEach(() => state.remove());

  it("inbound-webhooks.deliveries.replay (operator.write) makes exactly one new delivery, linked to the original; bad params and unknown ids are refused", async () => {
    const fake = fakeOpenClaw(state.dir);
    plugin.register(fake.api);
    expect([...fake.methods].map(([name, m]) => [name, m.scope])).toEqual([
      ["inbound-webhooks.deliveries.replay", "operator.write"],
      ["inbound-webhooks.deliveries.replay-filter", "operator.write"],
    ]);
    const hooks = serve(fake.route("/webhooks")).listen(0, "127.0.0.1");
    const operator = serve(fake.route("/inbound-webhooks")).listen(0, "127.0.0.1");
    try {
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      expect((await request(hooks).post("/webhooks/wake").set("Authorization", `Bearer ${TOKEN}`).send({ text: "disk almost full" })).status).toBe(200);
      const deliveries = async () => (await request(hooks).get("/webhooks/deliveries").set("Authorization", `Bearer ${TOKEN}`)).body.deliveries as any[];
      await until(async () => (await deliveries()).length === 1, "the wake in the ledger", { timeoutMs: 10_000, intervalMs: 20 });
      const [original] = await deliveries();

      const answer = await fake.call("inbound-webhooks.deliveries.replay", { id: original.id });
      expect(answer).toEqual({
        ok: true,
        payload: { ok: true, replayOf: original.id, deliveryId: expect.any(String), status: 200, body: { ok: true, mode: "now" } },
        error: undefined,
      });
      await until(async () => (await deliveries()).length === 2, "the replay in the ledger", { timeoutMs: 10_000, intervalMs: 20 });
      const after = await deliveries();
      expect(after.filter((d) => d.replayOf === original.id).map((d) => d.id)).toEqual([answer.payload.deliveryId]);

      expect(await fake.call("inbound-webhooks.deliveries.replay", {})).toEqual({
        ok: false,
        payload: undefined,
        error: { code: "invalid_request", message: expect.stringMatching(/^Param id is required/), details: { status: 400 } },
      });
      expect((await fake.call("inbound-webhooks.deliveries.replay", { id: original.id, all: true })).error.code).toBe("invalid_request");
      expect((await fake.call("inbound-webhooks.deliveries.replay", { id: "no-such-delivery" })).error).toEqual(
        expect.objectContaining({ code: "delivery_not_found", details: { status: 404 } }),
      );
      expect(await deliveries()).toHaveLength(2);

      // The read-only page offers the command that calls the method through the running gateway.
      const page = await request(operator).get(`/inbound-webhooks/ui/deliveries/${original.id}`);
      expect(page.text).toContain(`openclaw gateway call inbound-webhooks.deliveries.replay --params &#39;{&quot;id&quot;:&quot;${original.id}&quot;}&#39;`);
      expect(page.text).not.toContain("openclaw inbound-webhooks deliveries replay");
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      hooks.close();
      operator.close();
    }
  });

  it("/inbound-webhooks-frame serves the assets and the page's live feed without a cookie; a forged or expired capability is 401, a POST 405, anything else 404", async () => {
    const fake = fakeOpenClaw(state.dir);
    plugin.register(fake.api);
    const frame = fake.route("/inbound-webhooks-frame");
    expect([frame.auth, frame.match]).toEqual(["plugin", "prefix"]);
    const hooks = await listening(fake.route("/webhooks"));
    const operator = await listening(fake.route("/inbound-webhooks"));
    const channel = await listening(frame);
    try {
      await fake.services[0]!.start({ stateDir: state.dir, logger: fake.api.logger });
      const css = await request(channel).get("/inbound-webhooks-frame/assets/dashboard.css");
      expect([css.status, css.headers["content-type"]]).toEqual([200, "text/css; charset=utf-8"]);
      const page = await request(operator).get("/inbound-webhooks/ui/deliveries");
      const live = /data-live="([^"]+)"/.exec(page.text)![1]!;
      // The feed: an SSE stream any origin may read (the capability is the credential), its rows linking to the pages.
      const feed = await new Promise<{ status?: number; headers: http.IncomingHttpHeaders; first: string }>((resolve, reject) => {
        const { port } = channel.address() as { port: number };
        const req = http.get({ host: "127.0.0.1", port, path: live, headers: { origin: "null" } }, (res) => {
          res.once("data", (c: Buffer) => {
            resolve({ status: res.statusCode, headers: res.headers, first: c.toString() });
            req.destroy();
          });
        });
        req.on("error", reject);
      });
      expect([feed.status, feed.headers["content-type"], feed.headers["access-control-allow-origin"]]).toEqual([200, "text/event-stream; charset=utf-8", "*"]);
      const forged = live.replace(/\.[\w-]+\//, ".AAAA/");
      expect((await request(channel).get(forged)).status).toBe(401);
      expect((await request(channel).post(live)).status).toBe(405);
      expect((await request(channel).get("/inbound-webhooks-frame/deliveries")).status).toBe(404);
      expect((await request(channel).get("/inbound-webhooks-frame/live/1.x/deliveries")).status).toBe(404);
    } finally {
      await fake.services[0]!.stop?.({ stateDir: state.dir, logger: fake.api.logger });
      hooks.close();
      operator.close();
      channel.close();
    }
  });

  it("a feed capability holds 12 h, for this process's key only", () => {
    let now = 1_000_000;
    const a = createFeedCapability(() => now);
    const token = a.mint();
    expect(a.valid(token)).toBe(true);
    expect(createFeedCapability(() => now).valid(token)).toBe(false);
    expect(a.valid(token.replace(/^\d+/, String(now + FEED_CAPABILITY_MS * 2)))).toBe(false);
    now += FEED_CAPABILITY_MS;
    expect(a.valid(token)).toBe(false);
    expect(a.valid("")).toBe(false);
    expect(a.valid(".x")).toBe(false);
  });
});
