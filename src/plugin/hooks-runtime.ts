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
import type { MappingEngine } from "../mappings/engine";
import { createDispatcher } from "../runs/dispatcher";
import { createRunExecutor } from "../runs/executor";
import { createRunQueue } from "../runs/run-queue";
import { openPluginDatabase } from "../store/database";
import { createSqliteRunStore } from "../store/run-store";
import { createIdempotencyGuard } from "../http/idempotency/idempotency-guard";
import { createRateLimiter } from "../http/rate-limit";
import { createHooksRouter } from "../http/router";
import type { SignatureGate } from "../http/auth/signature-gate";
import type { PluginLogs } from "../logging/logger";

export interface HooksRuntimeOptions {
  config: ResolvedHooksConfig;
  runtime: HostRuntime;
  stateDir: string;
  mappings: MappingEngine;
  emitter: PluginEmitter;
  logs: PluginLogs;
  /** Verifiers of the verified paths, built (secrets read) before the runtime. */
  signatures: SignatureGate;
  /** True once the host announced it is stopping. */
  hostStopping: () => boolean;
}

export interface HooksRuntime {
  /** The hooks router, mounted (through the plugin's route) under `hooks.path`. */
  readonly router: RequestHandler;
  /** Resumes queued runs and reports those found running as interrupted. */
  resume(): Promise<void>;
  /** Refuses new requests, lets running runs finish within the grace period, closes the store. */
  stop(): Promise<void>;
}

/** Opens the store, reads the queue and builds the pipeline on top of them (no run is started yet). */
export function startHooksRuntime(opts: HooksRuntimeOptions): HooksRuntime {
  const { config, runtime, emitter, logs } = opts;
  let stopping = false;
  const isShuttingDown = (): boolean => stopping || opts.hostStopping();

  const db = openPluginDatabase({ dir: opts.stateDir, logger: logs.forModule("store"), synchronous: config.durability === "os" ? "FULL" : "NORMAL" });
  const queue = createRunQueue({
    store: createSqliteRunStore(db, { logger: logs.forModule("store") }),
    executor: createRunExecutor({ runtime, logger: logs.forModule("runs"), emitter }),
    config: config.runs,
    runtime,
    logger: logs.forModule("runs"),
    emitter,
  });
  try {
    queue.open();
  } catch (e) {
    db.close();
    throw e;
  }

  const router = createHooksRouter({
    config,
    runtime,
    logger: logs.forModule("http"),
    emitter,
    dispatcher: createDispatcher({ config, runtime, queue, isShuttingDown, logger: logs.forModule("dispatch") }),
    mappings: opts.mappings,
    signatures: opts.signatures,
    idempotency: createIdempotencyGuard({ ttlSeconds: config.idempotency.ttlSeconds, database: db, logger: logs.forModule("idempotency") }),
    runs: queue,
    rateLimiter: createRateLimiter(config, { logger: logs.forModule("rate-limit") }),
    isShuttingDown,
  });

  return {
    router,
    resume: () => queue.start(),
    async stop() {
      stopping = true;
      await queue.stop(config.runs.shutdownGraceSeconds * 1000);
      db.close();
    },
  };
}
