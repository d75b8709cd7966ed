/**
 * The hooks route's handler alone, routed to as a host does (test/helpers/route-host.ts:
 * `config.path` to the handler, the host's own 404 elsewhere), with a fake host runtime
 * and a recording dispatcher; no ledger and no metrics (NO_LEDGER, NO_METRICS, passed visibly). Captures
 * the plugin's events.
 */
import type { RequestListener } from "node:http";
import type { ResolvedHooksConfig } from "../../src/config/types";
import { createPluginEmitter, type PluginEmitter, type PluginEvents } from "../../src/core/events";
import { createHookHandler } from "../../src/intake/io/node-handler";
import type { HookPipelineDeps } from "../../src/intake/hook-pipeline";
import { routeHost } from "./route-host";
import { NO_METRICS, type Dispatcher } from "../../src/core/ports";
import { NO_LEDGER } from "../../src/intake/ledger";
import { createPluginLogger } from "../../src/logging/logger";
import { createFakeHost, type FakeHost, type FakeHostOptions } from "./fake-host";
import { createRecordingDispatcher, type RecordingDispatcher } from "./recording-dispatcher";
import { resolvedConfig, ROUTER_TEST_TOKEN } from "./resolved-config";

export { ROUTER_TEST_TOKEN } from "./resolved-config";

export { HOST_NOT_FOUND } from "./route-host";

export interface RouterAppOptions extends Pick<
  HookPipelineDeps,
  "mappings" | "idempotency" | "runs" | "isShuttingDown" | "ratePolicy" | "clock" | "idGen" | "throttleTables"
> {
  config?: Partial<ResolvedHooksConfig>;
  /** The host's trusted proxies (their X-Forwarded-For names the client). */
  trustProxy?: readonly string[];
  host?: FakeHostOptions;
  /** Use another dispatcher (e.g. the real one on the fake host) instead of the recording double. */
  dispatcherFor?: (host: FakeHost, config: ResolvedHooksConfig) => Dispatcher;
}

export interface RouterApp {
  /** The host's request listener (what supertest drives). */
  app: RequestListener;
  host: FakeHost;
  /** The recording double (unused when `dispatcherFor` is given). */
  dispatcher: RecordingDispatcher;
  emitter: PluginEmitter;
  config: ResolvedHooksConfig;
  accepted: Array<Parameters<PluginEvents["request:accepted"]>[0]>;
  rejected: Array<Parameters<PluginEvents["request:rejected"]>[0]>;
  /** Every log line the plugin sent to the host, as one string each (message + meta JSON). */
  logText(): string[];
  close(): void;
}

export const bearer = (token: string = ROUTER_TEST_TOKEN) => ({ Authorization: `Bearer ${token}` });

export function createRouterApp(options: RouterAppOptions = {}): RouterApp {
  const config = resolvedConfig(options.config);
  const host = createFakeHost(options.host);
  const logs = createPluginLogger(host.api.logger);
  const emitter = createPluginEmitter();
  const dispatcher = createRecordingDispatcher();
  const accepted: RouterApp["accepted"] = [];
  const rejected: RouterApp["rejected"] = [];
  emitter.on("request:accepted", (e) => accepted.push(e));
  emitter.on("request:rejected", (e) => rejected.push(e));

  const handler = createHookHandler({
    config,
    runtime: host.api.runtime,
    logger: logs.forModule("http"),
    emitter,
    dispatcher: options.dispatcherFor ? options.dispatcherFor(host, config) : dispatcher,
    mappings: options.mappings,
    idempotency: options.idempotency,
    runs: options.runs,
    isShuttingDown: options.isShuttingDown,
    ratePolicy: options.ratePolicy,
    clock: options.clock,
    idGen: options.idGen,
    throttleTables: options.throttleTables,
    ledger: NO_LEDGER,
    metrics: NO_METRICS,
  });
  const app = routeHost([{ prefix: config.path, handler }], { trustProxy: options.trustProxy });

  return {
    app,
    host,
    dispatcher,
    emitter,
    config,
    accepted,
    rejected,
    logText: () => host.logs.map((l) => `${l.level} ${l.message} ${JSON.stringify(l.meta ?? {})}`),
    close: () => logs.close(),
  };
}
