/**
 * The gateway app with the dashboard over a fake inspector, `/api/status` and
 * `/metrics`, all behind one operator throttle as in the gateway, for supertest; and
 * `login`, which goes through the real login form and returns the session
 * cookie and the CSRF token the pages carry.
 */
import request from "supertest";
import type { GatewayApp } from "../../src/gateway/http/create-app";
import { createGatewayApp } from "../../src/gateway/http/create-app";
import { createDashboard } from "../../src/gateway/ui/ui-router";
import { createInspectorRoute, type InspectorRoute } from "../../src/inspector/inspector-route";
import { createUiSessionStore } from "../../src/gateway/ui/ui-sessions";
import { createPrometheusMetrics } from "../../src/host-contract/prometheus-metrics";
import { createOperatorThrottle } from "../../src/gateway/http/operator-throttle";
import type { HostLogger } from "../../src/host-contract/host-api";
import type { JournalEntry } from "../../src/gateway/journal/journal";
import { createFakeInspector, type FakeInspector } from "./fake-inspector";
import type { HookInspector } from "../../src/core/inspection";
import type { LoginCodes } from "../../src/gateway/ui/login-codes";
import { startPluginApp, type PluginApp } from "./plugin-app";
import type { DashboardHostRule } from "../../src/gateway/http/dashboard-hosts";
import type { RouteEntry } from "../../src/gateway/plugins/route-table";

export const OPERATOR_TOKEN = "operator-token-0123456789abcdef";
export const NOW = Date.parse("2026-11-22T10:30:00.000Z");
const quiet: HostLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** The gateway's `/ui` with the inspector's route in it: closing ends the route's live feeds. */
export interface UiDashboard {
  close(): void;
  /** The inspector route's live feeds (none without an inspector). */
  liveFeeds(): ReturnType<InspectorRoute["liveFeeds"]>;
}

export interface UiApp {
  app: GatewayApp;
  inspector: FakeInspector;
  dashboard: UiDashboard;
}

const NO_FEEDS = { open: 0, skipping: 0, skippedEvents: 0, dropped: 0, queuedBytes: 0 };

/** The gateway's dashboard (login, sessions) over the inspector's operator route of `inspector`, as the gateway mounts a plugin's. */
function dashboardOver(
  inspector: FakeInspector | HookInspector | undefined,
  pluginId: string,
  opts: Omit<Parameters<typeof createDashboard>[0], "operatorRoutes"> & { keepAliveMs?: number; now?: () => number },
): { router: ReturnType<typeof createDashboard>["router"]; dashboard: UiDashboard } {
  const { keepAliveMs, ...rest } = opts;
  const route = inspector
    ? createInspectorRoute({
        inspector,
        pluginId,
        logger: opts.logger,
        ...(opts.now ? { now: opts.now } : {}),
        ...(keepAliveMs !== undefined ? { keepAliveMs } : {}),
      })
    : undefined;
  const ui = createDashboard({ ...rest, operatorRoutes: route ? [{ pluginId, route }] : [] });
  return { router: ui.router, dashboard: { close: () => ui.close(), liveFeeds: () => route?.liveFeeds() ?? NO_FEEDS } };
}

export function uiApp(
  opts: {
    inspector?: FakeInspector | null;
    authToken?: string | null;
    now?: () => number;
    journal?: () => readonly JournalEntry[];
    trustProxy?: readonly string[];
    loginCodes?: LoginCodes;
    keepAliveMs?: number;
    logger?: HostLogger;
    /** The operator throttle's capacity of clients still counting (default the gateway's). */
    throttleMaxClients?: number;
    /** Host names /ui and /api answer, as the gateway derives them from gateway.bind and gateway.ui.allowedHosts (default: every Host). */
    hosts?: DashboardHostRule;
    /** Plugin routes after /ui (default none). */
    routes?: readonly RouteEntry[];
  } = {},
): UiApp {
  const inspector = opts.inspector === null ? undefined : (opts.inspector ?? createFakeInspector());
  let n = 0;
  const now = opts.now ?? (() => NOW);
  const authToken = opts.authToken === null ? undefined : (opts.authToken ?? OPERATOR_TOKEN);
  // One operator throttle for /ui, /api and /metrics, as the gateway wires it.
  const throttle = createOperatorThrottle({ now, ...(opts.throttleMaxClients !== undefined ? { maxClients: opts.throttleMaxClients } : {}) });
  const { router, dashboard } = dashboardOver(inspector, "fake", {
    authToken,
    logger: opts.logger ?? quiet,
    sessions: createUiSessionStore({ now, randomId: () => `rand-${++n}` }),
    throttle,
    now,
    ...(opts.journal ? { journal: opts.journal } : {}),
    ...(opts.loginCodes ? { loginCodes: opts.loginCodes } : {}),
    ...(opts.keepAliveMs !== undefined ? { keepAliveMs: opts.keepAliveMs } : {}),
    ...(opts.hosts ? { hosts: opts.hosts } : {}),
  });
  const metrics = createPrometheusMetrics({ logger: quiet });
  const app = createGatewayApp({
    routes: opts.routes ?? [],
    logger: opts.logger ?? quiet,
    status: () => ({}),
    ui: router,
    authToken,
    metrics,
    operatorThrottle: throttle,
    trustProxy: opts.trustProxy,
    ...(opts.hosts ? { hosts: opts.hosts } : {}),
  });
  return { app, inspector: inspector ?? createFakeInspector(), dashboard };
}

/** Logs in through the form; returns the cookie header and the page's CSRF token. */
export async function login(app: GatewayApp): Promise<{ cookie: string; csrf: string }> {
  const res = await request(app).post("/ui/login").set("Origin", "http://127.0.0.1").set("Host", "127.0.0.1").type("form").send({ token: OPERATOR_TOKEN });
  expect(res.status).toBe(303);
  const cookie = String(res.headers["set-cookie"]![0]).split(";")[0]!;
  const page = await request(app).get("/ui/mappings").set("Cookie", cookie);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  expect(csrf).toBeDefined();
  return { cookie, csrf: csrf! };
}

export interface PluginUiApp {
  plugin: PluginApp;
  app: GatewayApp;
  dashboard: UiDashboard;
  /** The gateway's error-level log lines (the dashboard's). */
  gatewayErrors: string[];
  close(): Promise<void>;
}

/**
 * The gateway app with the dashboard over the real plugin's inspector (a fake one checks
 * nothing): one wake mapping `crm`, the rate limit off, the operator token OPERATOR_TOKEN.
 */
export async function pluginUiApp(): Promise<PluginUiApp> {
  const plugin = await startPluginApp({
    hooks: { rateLimit: { enabled: false }, mappings: [{ id: "crm", match: { path: "crm" }, action: "wake", textTemplate: "deal" }] },
  });
  const gatewayErrors: string[] = [];
  const logger: HostLogger = { debug() {}, info() {}, warn() {}, error: (msg) => void gatewayErrors.push(msg) };
  const { router, dashboard } = dashboardOver(plugin.host.inspectors[0]!, "inbound-webhooks", { authToken: OPERATOR_TOKEN, logger });
  const app = createGatewayApp({
    routes: plugin.host.routes.map((r) => ({ ...r, pluginId: "inbound-webhooks" })),
    logger,
    status: () => ({}),
    ui: router,
    authToken: OPERATOR_TOKEN,
  });
  return {
    plugin,
    app,
    dashboard,
    gatewayErrors,
    async close() {
      dashboard.close();
      await plugin.close();
    },
  };
}
