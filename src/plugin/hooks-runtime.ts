/**
 * The plugin's runtime: everything that needs the durable store — the database,
 * the run queue, the dispatcher, the idempotency guard and the hooks router —
 * created together, once, when the runs service starts, and stopped together.
 * Nothing here is reached through a getter that could be called too early.
 * Creating it only reads the store (it can still fail the start harmlessly);
 * `resume()` is the first step that acts on accepted runs, called once the host's
 * start can no longer fail (SPEC §7 "Damaged state at start").
 */
import type { RequestHandler } from "express";
import type { ResolvedHooksConfig } from "../config/types";
import type { PluginEmitter } from "../core/events";
import type { HostRuntime } from "../host-contract/host-api";
import type { HostMetrics } from "../host-contract/metrics";
import type { MappingEngine } from "../mappings/engine";
import { createDispatcher } from "../runs/dispatcher";
import { createRunExecutor } from "../runs/executor";
import { createRunQueue } from "../runs/run-queue";
import { openPluginDatabase } from "../store/database";
import { createSqliteRunStore } from "../store/run-store";
import { createIdempotencyGuard } from "../http/idempotency/idempotency-guard";
import { createRatePolicy } from "../http/pipeline/rate-policy";
import { createAcceptFor } from "../http/pipeline/hook-pipeline";
import { createHooksRouter } from "../http/router";
import type { LedgerAccess } from "../http/ledger";
import { createReplayer } from "../http/pipeline/replay";
import { createLedgerStore } from "../store/ledger-store";
import { createRunLister } from "../store/run-list";
import type { SignatureGate } from "../http/auth/signature-gate";
import type { HandshakeGate } from "../http/handshake";
import { createWaitGate } from "../http/responses/prefer-wait";
import { createRunWaiters } from "../runs/run-waiters";
import type { PluginLogs } from "../logging/logger";
import type { SecretValues } from "../host-contract/redaction";
import { createHookMetrics, type HookMetrics } from "./hook-metrics";
import type { KeyNamer } from "../host-contract/config-keys";

export interface HooksRuntimeOptions {
  config: ResolvedHooksConfig;
  runtime: HostRuntime;
  stateDir: string;
  mappings: MappingEngine;
  emitter: PluginEmitter;
  logs: PluginLogs;
  /** Verifiers of the verified paths, built (secrets read) before the runtime. */
  signatures: SignatureGate;
  /** Meta verification GETs, built (verify tokens read) before the runtime. */
  handshakes?: HandshakeGate;
  /** Configured secrets hidden wherever they appear in a ledger row. */
  secrets?: SecretValues;
  /** True once the host announced it is stopping. */
  hostStopping: () => boolean;
  /** The host's metrics port (host API 1.3); absent: nothing is recorded. */
  metrics?: HostMetrics;
  /** Names the plugin's config keys in answers and stored run errors, as the host keeps them (config-keys.ts). */
  keys?: KeyNamer;
}

export interface HooksRuntime {
  /** The hooks router, mounted (through the plugin's route) under `hooks.path`. */
  readonly router: RequestHandler;
  /** The delivery ledger, the run listing and replay (for the inspector). */
  readonly ledger: LedgerAccess;
  /** Resumes queued runs and reports those found running as interrupted. */
  resume(): Promise<void>;
  /** Refuses new requests, lets running runs finish within the grace period, closes the store. */
  stop(): Promise<void>;
}

/** The hooks' metrics over the host's metrics port: requests by hook, runs, queue depth, ledger size. */
function metricsOf(opts: HooksRuntimeOptions, port: HostMetrics, read: { queuedCount: () => number; ledgerEntries: () => number }): HookMetrics {
  return createHookMetrics({
    metrics: port,
    emitter: opts.emitter,
    knownHooks: opts.mappings.describe().flatMap((d) => (d.match.path !== undefined ? [d.match.path] : [])),
    signatureSchemes: opts.mappings.verifications().map((v) => v.config.scheme),
    queueDepth: read.queuedCount,
    ledgerEntries: read.ledgerEntries,
  });
}

/** Opens the store, reads the queue and builds the pipeline on top of them (no run is started yet). */
export function startHooksRuntime(opts: HooksRuntimeOptions): HooksRuntime {
  const { config, runtime, emitter, logs } = opts;
  let stopping = false;
  const isShuttingDown = (): boolean => stopping || opts.hostStopping();

  const db = openPluginDatabase({ dir: opts.stateDir, logger: logs.forModule("store"), synchronous: config.durability === "os" ? "FULL" : "NORMAL" });
  // Requests waiting for their run (Prefer: wait) learn its outcome the moment the queue records it.
  const waiters = createRunWaiters();
  const executor = createRunExecutor({ runtime, logger: logs.forModule("runs"), emitter, keys: opts.keys });
  const queue = createRunQueue({
    store: createSqliteRunStore(db, { logger: logs.forModule("store"), retentionDays: config.runs.retentionDays, maxFinished: config.runs.maxFinished }),
    executor: {
      ...executor,
      execute: (run, signal, onOutcome) =>
        executor.execute(run, signal, (outcome) => {
          onOutcome?.(outcome);
          waiters.settle(run.id, outcome);
        }),
    },
    config: config.runs,
    runtime,
    logger: logs.forModule("runs"),
    emitter,
    keys: opts.keys,
  });
  try {
    queue.open();
  } catch (e) {
    db.close();
    throw e;
  }

  const waits = createWaitGate(config.runs, waiters);

  const dispatcher = createDispatcher({ config, runtime, queue, isShuttingDown, logger: logs.forModule("dispatch") });
  let store: ReturnType<typeof createLedgerStore>;
  try {
    store = createLedgerStore(db, { logger: logs.forModule("ledger"), ...config.ledger });
  } catch (e) {
    db.close();
    throw e;
  }
  const metrics = opts.metrics && metricsOf(opts, opts.metrics, { queuedCount: () => queue.queuedCount, ledgerEntries: () => store.count() });

  const idempotency = createIdempotencyGuard({ ttlSeconds: config.idempotency.ttlSeconds, database: db, logger: logs.forModule("idempotency") });
  // One accept path for live requests and replays (SPEC §4.1).
  const accept = createAcceptFor({ config, runtime, dispatcher, mappings: opts.mappings, idempotency, waits });
  const ledger: LedgerAccess = {
    store,
    runs: createRunLister(db),
    replay: createReplayer({
      config,
      ledger: store,
      accept,
      signatures: opts.signatures,
      onUnexpected: (e) => logs.forModule("ledger").error("replay failed with an unexpected error", { error: e instanceof Error ? e.message : String(e) }),
    }),
    // A verify.header (hmac-sha256, token-header) may carry a secret under any name.
    hiddenHeaders: new Set(opts.mappings.verifications().flatMap((v) => (v.config.header ? [v.config.header.toLowerCase()] : []))),
    secrets: opts.secrets,
  };
  const router = createHooksRouter({
    config,
    runtime,
    logger: logs.forModule("http"),
    emitter,
    dispatcher,
    mappings: opts.mappings,
    ledger,
    signatures: opts.signatures,
    handshakes: opts.handshakes,
    waits,
    idempotency,
    accept,
    runs: queue,
    ratePolicy: createRatePolicy(config, { logger: logs.forModule("rate-limit") }),
    isShuttingDown,
    metrics,
    keys: opts.keys,
  });

  return {
    router,
    ledger,
    resume: () => queue.start(),
    async stop() {
      stopping = true;
      // Waiting requests are answered 202 at once: their runs are stored, and a stopping gateway answers now.
      waits.releaseAll();
      await queue.stop(config.runs.shutdownGraceSeconds * 1000);
      metrics?.close();
      store.close();
      db.close();
    },
  };
}
