/**
 * Plugin entry: the composition root. `activate(api)` is synchronous — it
 * resolves and validates config and compiles the mappings (src/plugin/config-check.ts,
 * throwing one ConfigError naming every problem; `configProblems` runs the same
 * checks for a host that does not activate) and registers the HTTP route, the services and the CLI.
 * Secrets are read where they are used: the hook token when the runs service
 * starts (before the host listens), so CLI commands, which also activate the
 * plugin, work while the token's environment variable is unset. The runtime that
 * needs the token and the durable store (database, run queue, dispatcher,
 * idempotency guard, the route's handler) is created as one object in that start
 * (src/plugin/hooks-runtime.ts). Nothing is kept at module level: each activation
 * owns its state, and its own services release it when they stop.
 */
import semver from "semver";
import type { ConfigCheckInput, PluginApi, ServiceRegistration } from "../host-contract/host-api";
import { resolveHooksSecrets } from "../config/resolve";
import { readStoreUrl } from "../config/store-config";
import { createPluginEmitter, type PluginEmitter } from "../core/events";
import { notServingHandler, startFailureAnswer } from "../intake/io/not-serving";
import { ConfigError, type HookError } from "../core/errors";
import { agentConfigProblems } from "../actions/agent-id";
import { createSignatureGate } from "../intake/auth/signature-gate";
import { createHandshakeGate } from "../intake/handshake";
import { registerWebhooksCli } from "../cli/webhooks";
import { createPluginLogger } from "../logging/logger";
import { secretValues } from "../host-contract/redaction";
import { createMailService, MAIL_SERVICE_ID } from "../mail/watcher/service";
import { watchHost, type HostActivity } from "./host-activity";
import { startHooksRuntime, type HooksRuntime } from "./hooks-runtime";
import { startPgHooksRuntime } from "./pg-runtime";
import { createHookInspector } from "./hook-inspector";
import { createInspectorRoute } from "../inspector/inspector-route";
import type { HookInspector } from "../core/inspection";
import { checkHooksConfig, hooksConfigProblems } from "./config-check";
import { configKeyNamer, withKeysNamed, type KeyNamer } from "../host-contract/config-keys";
import { warmUpWrapper, type WarmUp } from "../safety/warm-up";

export type { PluginApi } from "../host-contract/host-api";
export type { HostActivity } from "./host-activity";
export { defineTransform } from "../mappings/define-transform";
export type { TransformContext, TransformResult, TransformFn } from "../mappings/define-transform";

/**
 * What `activate` returns: this activation's own view, for in-process callers
 * and tests (a host may ignore it; the host contract only needs `activate` to
 * register).
 */
export interface PluginActivation {
  /** Decisions the plugin emits (accepted, rejected, run started/finished): never payloads. */
  readonly events: PluginEmitter;
  /** A snapshot of the host activity this activation has seen. */
  hostActivity(): HostActivity;
  /** The delivery ledger, runs and mappings as the inspector's pages read them (when hooks are enabled). */
  readonly inspector?: HookInspector;
}

/** The start error of `gateway start --role receiver` with the SQLite store. */
const RECEIVER_NEEDS_POSTGRES =
  'hooks.store.kind must be "postgres" when the gateway runs as a receiver (gateway start --role receiver): a receiver stores into the database its consumers share; with "sqlite" start it without --role (docs/scale.md)';

const SILENT = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Every problem `activate` would report for this config, a `<key> <rule>` line each, without
 * activating (host contract `PluginModule.configProblems`): the host asks while its schema check
 * of `hooks` failed, so the problems only compiling finds are listed in the same start.
 */
export function configProblems(input: ConfigCheckInput): string[] {
  return hooksConfigProblems(input, SILENT);
}

/** `work`, whose failure (a ConfigError naming a key, most often) names the keys with `keys`. */
function namingKeys<T>(keys: KeyNamer, work: () => T): T {
  try {
    const result = work();
    return result instanceof Promise ? (result.catch((e: unknown) => Promise.reject(withKeysNamed(e, keys))) as T) : result;
  } catch (e) {
    throw withKeysNamed(e, keys);
  }
}

export function activate(api: PluginApi): PluginActivation {
  // Every sentence naming a key of the section names it where the host keeps it (host contract 1.4 `configSection`).
  const keys = configKeyNamer(api.configSection);
  const logs = createPluginLogger(api.logger, api.pluginId, keys);
  const log = logs.forModule("plugin");
  // Every problem of the config at once (schema and compile), before anything is registered or subscribed.
  // Mappings are compiled at activation so bad mappings/presets fail start.
  const { config, mappings } = namingKeys(keys, () => {
    const checked = checkHooksConfig(
      { config: api.config, configDir: api.configDir, presets: api.listPresets(), presetsComplete: true },
      logs.forModule("mappings"),
    );
    // The agents a mapping or preset names are the host's (runtime.agents.known()), so they are checked here, not by the schema.
    const agentLines = agentConfigProblems(checked.config, api.runtime.agents.known?.());
    if (agentLines.length > 0) throw new ConfigError(agentLines.join("\n"));
    return checked;
  });
  const emitter = createPluginEmitter();
  const host = watchHost(api.events, log);
  // Registered first, so stopped last: the host events and the loggers outlive every other service. Its start
  // says once what is served: a host's CLI command activates the plugin too (OpenClaw: twice), but starts no service.
  api.registerService({
    id: "inbound-webhooks.lifecycle",
    start: () => {
      if (config.enabled) log.info("hooks enabled", { path: config.path, mappings: mappings.describe().length, presets: config.presets });
      else log.info("hooks disabled (hooks.enabled is not true); no HTTP listener registered");
    },
    stop: () => {
      host.unsubscribe();
      logs.close();
    },
  });
  const activation: PluginActivation = { events: emitter, hostActivity: host.snapshot };

  registerWebhooksCli(api, { config, mappings, logs });

  if (!config.enabled) return activation;

  let runtime: HooksRuntime | undefined;
  // The inspector's pages, served under the operator route of a host of contract 2.1+ (the embedded gateway's /ui,
  // OpenClaw's /inbound-webhooks/ui); it reads through the runtime once started (not over a remote store: its reads are synchronous).
  const inspection = createHookInspector({
    config,
    runtime: api.runtime,
    mappings,
    ledger: () => (runtime?.remote ? undefined : runtime?.ledger),
    events: emitter,
  });
  const pages = api.registerOperatorRoute
    ? createInspectorRoute({ inspector: inspection.inspector, pluginId: api.pluginId, logger: logs.forModule("ui") })
    : undefined;
  if (pages) api.registerOperatorRoute?.(pages);
  // The route exists from activation; it serves through the runtime once the runs
  // service has started it, and refuses (503, retryable) before and after.
  // A start that failed on the config (a host serving the route after it: OpenClaw) answers 503 not_configured naming the keys.
  let startFailure: HookError | undefined;
  const notServing = notServingHandler(() => startFailure);
  api.registerHttpRoute({
    prefix: config.path,
    handler: (req, res, context) => (runtime ? runtime.handler(req, res, context) : notServing(req, res, context)),
  });
  // A host of contract 1.2+ calls ready() once its start can no longer fail: queued runs
  // resume (and runs found running are reported interrupted) only then, so a failed
  // start leaves every run as it was. An older host never calls ready(): resume in start().
  const hostCallsReady = semver.gte(semver.coerce(api.hostApiVersion) ?? "0.0.0", "1.2.0");
  // Once serving, the wrapper's scanner is compiled in small slices (safety/warm-up.ts), so the first hostile body does not stall the process.
  let warming: WarmUp | undefined;
  const serving = async () => {
    await runtime?.resume();
    warming ??= warmUpWrapper();
  };
  api.registerService({
    id: "inbound-webhooks.runs",
    start: () =>
      namingKeys(keys, async () => {
        startFailure = undefined;
        // A missing or invalid token fails the start here, as a ConfigError naming hooks.token.
        const resolved = resolveHooksSecrets(config, { configDir: api.configDir });
        // Signature secrets too: an unset variable fails the start naming e.g. hooks.mappings[2].verify.secret[1].
        const signatures = createSignatureGate(mappings.verifications(), { configDir: api.configDir });
        // And Meta verify tokens (handshake.meta.verifyToken), read at the same point.
        const handshakes = createHandshakeGate(mappings.metaHandshakes(), { configDir: api.configDir });
        // hooks.store.url (Postgres): read here too, every problem naming the key; its password is a secret like the others.
        const storeUrl = readStoreUrl(config.store, { configDir: api.configDir });
        // SPEC §9: the configured secrets never appear in a log line or a ledger row, whatever carries them.
        const secrets = secretValues([resolved.token, storeUrl?.password, ...signatures.secrets, ...handshakes.secrets]);
        logs.hideSecrets(secrets);
        const role = api.role ?? "consumer";
        if (role === "receiver" && !storeUrl) throw new ConfigError(RECEIVER_NEEDS_POSTGRES);
        const parts = {
          config: resolved,
          runtime: api.runtime,
          stateDir: api.stateDir,
          mappings,
          signatures,
          handshakes,
          secrets,
          emitter,
          logs,
          hostStopping: () => host.snapshot().hostStopping,
          metrics: api.metrics,
          keys,
          events: api.events,
        };
        if (storeUrl) runtime = await startPgHooksRuntime({ ...parts, storeUrl: storeUrl.url, role });
        else {
          runtime = startHooksRuntime(parts);
          runtime.ledger.store.subscribe(inspection.publish, inspection.listening);
        }
        if (!hostCallsReady) await serving();
      }).catch((e: unknown) => {
        startFailure = startFailureAnswer(e);
        throw e;
      }),
    ready: serving,
    stop: async () => {
      warming?.stop();
      // The live feeds end with the ledger they follow.
      pages?.close();
      await runtime?.stop();
    },
  });
  if (config.mail?.autoStart) {
    // The watcher posts with the hook token: it reads it when its service starts, like the runs service.
    let mail: ServiceRegistration | undefined;
    api.registerService({
      id: MAIL_SERVICE_ID,
      start: () =>
        namingKeys(keys, () => {
          mail = createMailService({
            config: resolveHooksSecrets(config, { configDir: api.configDir }),
            stateDir: api.stateDir,
            configDir: api.configDir,
            logger: logs.forModule("mail"),
          });
          return mail.start();
        }),
      stop: () => mail?.stop(),
    });
  }

  return { ...activation, inspector: inspection.inspector };
}
