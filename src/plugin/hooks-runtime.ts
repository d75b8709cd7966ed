/**
 * The plugin's runtime: everything that needs the durable store — the database,
 * the run queue, the dispatcher, the idempotency guard and the hooks route's handler —
 * created together, once, when the runs service starts, and stopped together.
 * Nothing here is reached through a getter that could be called too early.
 * Creating it only reads the store (it can still fail the start harmlessly);
 * `resume()` is the first step that acts on accepted runs, called once the host's
 * start can no longer fail (SPEC §7 "Damaged state at start").
 */
import { verifiedHeaderNames } from "../mappings/path-verifications";
import type { ResolvedHooksConfig } from "../config/types";
import type { PluginEmitter } from "../core/events";
import type { HostEvents, HostRuntime } from "../host-contract/host-api";
import type { EventEmitter } from "eventemitter3";
import { createSessionOutbox, type SessionOutbox } from "../runs/session-outbox";
import { createSqliteSessionEventStore } from "../store/session-event-store";
import { WAKE_HEARTBEAT_REASON } from "../runs/dispatcher";
import type { HttpRouteHandler } from "../host-contract/http-route";
import type { HostMetrics } from "../host-contract/metrics";
import type { MappingEngine } from "../mappings/engine";
import { createDispatcher } from "../runs/dispatcher";
import { createRunExecutor } from "../runs/executor";
import { createRunQueue } from "../runs/run-queue";
import { openPluginDatabase, type PluginDatabase } from "../store/database";
import { createSqliteRunStore } from "../store/run-store";
import { createIdempotencyGuard } from "../intake/idempotency/idempotency-guard";
import { createRatePolicy } from "../intake/rate-policy";
import { createAcceptFor } from "../intake/hook-pipeline";
import { createHookHandler } from "../intake/io/node-handler";
import type { LedgerAccess } from "../intake/ledger";
import { replayAccessOf } from "./replay-access";
import { createLedgerStore, type LedgerStore } from "../store/ledger-store";
import type { Accept } from "../intake/accept";
import { createRunLister } from "../store/run-list";
import type { SignatureGate } from "../intake/auth/signature-gate";
import type { HandshakeGate } from "../intake/handshake";
import { createWaitGate } from "../intake/responses/prefer-wait";
import { createRunWaiters } from "../runs/run-waiters";
import type { PluginLogs } from "../logging/logger";
import type { SecretValues } from "../host-contract/redaction";
import { createHookMetrics, type HookMetrics } from "./hook-metrics";
import { NO_METRICS } from "../core/ports";
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
  /** The host's events: the `turn` a kept main-session event was taken into (session-outbox.ts). */
  events?: EventEmitter<HostEvents>;
}

export interface HooksRuntime {
  /** The hooks route's handler (through the plugin's route, under `hooks.path`). */
  readonly handler: HttpRouteHandler;
  /** The delivery ledger, the run listing and replay (for the inspector). */
  readonly ledger: LedgerAccess;
  /** True over a remote store (Postgres, pg-runtime.ts): the inspector's synchronous reads are not served. */
  readonly remote?: boolean;
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

/** The plugin's SQLite file in its state dir, synced at each commit when `hooks.durability` is "os". */
export function openStateDatabase(opts: HooksRuntimeOptions): PluginDatabase {
  return openPluginDatabase({ dir: opts.stateDir, logger: opts.logs.forModule("store"), synchronous: opts.config.durability === "os" ? "FULL" : "NORMAL" });
}

/** A host keeping its events in memory (OpenClaw): wakes are kept in the plugin's store until a turn took them (session-outbox.ts). */
export function outboxOf(opts: HooksRuntimeOptions, db: PluginDatabase): SessionOutbox | undefined {
  if (!opts.runtime.sessions.eventsInMemory || !opts.events) return undefined;
  const store = createSqliteSessionEventStore(db, opts.logs.forModule("store"));
  return createSessionOutbox({ store, runtime: opts.runtime, events: opts.events, logger: opts.logs.forModule("dispatch") });
}

/** The ledger as the routes read it: the store, the run listing, replay and bulk replay through the one accept path. */
function ledgerAccessOf(opts: HooksRuntimeOptions, db: PluginDatabase, store: LedgerStore, accept: Accept): LedgerAccess {
  return {
    store,
    runs: createRunLister(db),
    ...replayAccessOf(opts, store, accept),
    hiddenHeaders: verifiedHeaderNames(opts.mappings.verifications()),
    secrets: opts.secrets,
  };
}

/** Opens the store, reads the queue and builds the pipeline on top of them (no run is started yet). */
export function startHooksRuntime(opts: HooksRuntimeOptions): HooksRuntime {
  const { config, runtime, emitter, logs } = opts;
  let stopping = false;
  const isShuttingDown = (): boolean => stopping || opts.hostStopping();

  const db = openStateDatabase(opts);
  // Requests waiting for their run (Prefer: wait) learn its outcome the moment the queue records it.
  const waiters = createRunWaiters();
  // Wakes and run summaries, on a host keeping its events in memory (OpenClaw), are kept until a turn took them.
  const outbox = outboxOf(opts, db);
  const executor = createRunExecutor({ runtime, logger: logs.forModule("runs"), emitter, keys: opts.keys, ...(outbox ? { outbox } : {}) });
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
    outbox?.close();
    db.close();
    throw e;
  }

  const waits = createWaitGate(config.runs, waiters);

  const dispatcher = createDispatcher({ config, runtime, queue, isShuttingDown, logger: logs.forModule("dispatch"), ...(outbox ? { outbox } : {}) });
  let store: ReturnType<typeof createLedgerStore>;
  try {
    store = createLedgerStore(db, { logger: logs.forModule("ledger"), ...config.ledger });
  } catch (e) {
    outbox?.close();
    db.close();
    throw e;
  }
  const metrics = opts.metrics && metricsOf(opts, opts.metrics, { queuedCount: () => queue.queuedCount, ledgerEntries: () => store.count() });

  const idempotency = createIdempotencyGuard({ ttlSeconds: config.idempotency.ttlSeconds, database: db, logger: logs.forModule("idempotency") });
  // One accept path for live requests and replays (SPEC §4.1).
  const accept = createAcceptFor({ config, runtime, dispatcher, mappings: opts.mappings, idempotency, waits });
  const ledger = ledgerAccessOf(opts, db, store, accept);
  const handler = createHookHandler({
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
    metrics: metrics ?? NO_METRICS,
    keys: opts.keys,
  });

  return {
    handler,
    ledger,
    async resume() {
      // What was kept from before this start first; what the queue's recovery reports now is handed as it is put.
      await outbox?.handPending(WAKE_HEARTBEAT_REASON);
      await queue.start();
    },
    async stop() {
      stopping = true;
      outbox?.close();
      // Waiting requests are answered 202 at once: their runs are stored, and a stopping gateway answers now.
      waits.releaseAll();
      await queue.stop(config.runs.shutdownGraceSeconds * 1000);
      metrics?.close();
      store.close();
      db.close();
    },
  };
}
