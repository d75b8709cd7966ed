/**
 * The plugin's runtime over the Postgres store (`hooks.store.kind: "postgres"`, SPEC §16,
 * docs/scale.md), created when the runs service starts — the counterpart of
 * hooks-runtime.ts (SQLite):
 *
 * - **Accept path** (both roles): the run intake (run-intake.ts) over the receiver's write
 *   side, idempotency by the store's unique key (pg-idempotency-guard.ts): each request's
 *   record, runs and wakes in the turn's one statement (pg-accept.ts); wakes are stored for
 *   the consumer's main session; the ledger row of each answered request joins a later
 *   turn's statement, kept and written again when Postgres was unavailable
 *   (pg-ledger-writer.ts). `Prefer: wait` is not applied (answered 202 at once): the run is
 *   committed only with the answer, and another process may run it.
 * - **Reads**: `GET {path}/runs/<id>`, `runs`, `deliveries`, `deliveries/<id>` (search by
 *   Postgres full text) read Postgres (pg-runs.ts, pg-ledger.ts).
 * - **Replay** (`deliveries/<id>/replay`, bulk `deliveries/replay`): the SQLite path's code
 *   (replay.ts, bulk-replay.ts, through replay-access.ts) over Postgres's
 *   reads; the replayed request takes the accept path above, its row the ledger writer.
 * - **Consumer** (the normal role only): claims runs under a lease, runs them, hands stored
 *   wakes to the host's main session (run-consumer.ts), woken by LISTEN/NOTIFY and a poll.
 *   On a host keeping its events in memory (OpenClaw) wakes and summaries go through the
 *   main-session outbox (session-outbox.ts) over a local SQLite file in the plugin's state
 *   dir (`openLocalOutbox`): kept there until a turn carried them, handed again at each start.
 *   A receiver (`gateway start --role receiver`) runs no agent turn.
 * - **Background**: the ledger's search index, and pruning of the ledger, finished runs and
 *   expired keys, each in small statements.
 *
 * Not served over Postgres yet: the dashboard's reads (empty; src/plugin/index.ts gives
 * the inspector no ledger over a remote store), docs/scale.md.
 */
import { verifiedHeaderNames } from "../mappings/path-verifications";
import os from "node:os";
import { randomBytes } from "node:crypto";
import { openStateDatabase, outboxOf, type HooksRuntimeOptions, type HooksRuntime } from "./hooks-runtime";
import { createSqliteSessionEventStore } from "../store/session-event-store";
import type { SessionOutbox } from "../runs/session-outbox";
import { wakeIdsOf } from "../runs/wake-handoff";
import { replayAccessOf } from "./replay-access";
import { createDispatcher, WAKE_HEARTBEAT_REASON } from "../runs/dispatcher";
import { createRunExecutor } from "../runs/executor";
import { createRunIntake } from "../runs/run-intake";
import { createRunConsumer, type RunConsumer } from "../runs/run-consumer";
import { openPostgresStore, type PostgresStore } from "../store/postgres/pg-store";
import { createPgLedgerWriter, type PgLedgerWriter } from "../store/postgres/pg-ledger-writer";
import { createPgIdempotencyGuard } from "../intake/idempotency/pg-idempotency-guard";
import { createRatePolicy } from "../intake/rate-policy";
import { createAcceptFor } from "../intake/hook-pipeline";
import { createHookHandler } from "../intake/io/node-handler";
import type { LedgerAccess } from "../intake/ledger";
import type { Accept } from "../intake/accept";
import { NO_METRICS } from "../core/ports";
import type { LedgerStore } from "../store/ledger-store";
import type { RunLister } from "../store/run-list";
import type { ModuleLogger } from "../core/logger";
import type { HookRole } from "../host-contract/hook-role";

export interface PgRuntimeOptions extends HooksRuntimeOptions {
  /** `hooks.store.url`, read from its source. Never log. */
  storeUrl: string;
  role: HookRole;
}

/** How often the ledger's search index is brought up to date, and how often the stores are pruned. */
const INDEX_EVERY_MS = 1000;
const PRUNE_EVERY_MS = 60_000;

const remote = (what: string) => (): never => {
  throw Object.assign(new Error(`${what} is not read synchronously from the Postgres store`), { code: "PG_NOT_SYNCHRONOUS" });
};

/** The ledger's write side over the group commit: each answered request's row joins a later turn's statement, again after an outage. */
function pgLedgerStore(writer: PgLedgerWriter): LedgerStore {
  return {
    record: (entry) => writer.record(entry),
    flush: () => undefined,
    prune: () => 0,
    // Indexed by the background (createBackground), not through this store.
    index: () => 0,
    list: remote("the delivery list"),
    get: remote("a delivery"),
    deliveryOfRun: remote("a run's delivery"),
    count: remote("the ledger's size"),
    lastReceivedAt: remote("the ledger's newest row"),
    subscribe: () => () => undefined,
    close: () => undefined,
  };
}

const notSynchronous: RunLister = { list: remote("the run list"), get: remote("a run"), counts: remote("the run counts") };

/** A consumer's name in its leases: unique per process. */
const ownerName = (): string => `${os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;

/** The ledger routes' access over Postgres: its reads, and replay as over SQLite (one rule: replay.ts, bulk-replay.ts) with the replay's row by the group commit. */
function pgLedgerAccess(opts: PgRuntimeOptions, store: PostgresStore, writer: PgLedgerWriter, accept: Accept): LedgerAccess {
  return {
    store: pgLedgerStore(writer),
    runs: notSynchronous,
    reads: { list: (q) => store.ledger.list(q), get: (id) => store.ledger.get(id), runs: (q) => store.runs.list(q) },
    ...replayAccessOf(
      opts,
      {
        get: (id) => store.ledger.get(id),
        record: (entry) => writer.record(entry),
        list: (q) => store.ledger.list(q),
        // The rows already answered are written first, so a bulk replay's preview counts them.
        flush: () => store.accept.drain(),
      },
      accept,
    ),
    hiddenHeaders: verifiedHeaderNames(opts.mappings.verifications()),
    secrets: opts.secrets,
  };
}

interface LocalOutbox {
  outbox: SessionOutbox;
  /** The ids of the stored wakes kept from before this start (committed locally, perhaps not acked in Postgres). */
  keptWakes: string[];
  close(): void;
}

/**
 * A consumer on a host keeping its events in memory (OpenClaw): the main-session outbox over the plugin's own SQLite
 * file in its state dir (the file of the SQLite store; only its `session_events` table is used over Postgres), the
 * events kept on this machine beside the host whose memory they stand for (docs/scale.md "Wakes inside OpenClaw").
 */
function openLocalOutbox(opts: PgRuntimeOptions): LocalOutbox | undefined {
  if (opts.role !== "consumer" || !opts.runtime.sessions.eventsInMemory || !opts.events) return undefined;
  const logger = opts.logs.forModule("store");
  const db = openStateDatabase(opts);
  const outbox = outboxOf(opts, db)!;
  const keptWakes = wakeIdsOf(
    createSqliteSessionEventStore(db, logger)
      .pending()
      .map((e) => e.dedupeKey),
  );
  return { outbox, keptWakes, close: () => db.close() };
}

export async function startPgHooksRuntime(opts: PgRuntimeOptions): Promise<HooksRuntime> {
  const { config, runtime, emitter, logs } = opts;
  const storeConfig = config.store.kind === "postgres" ? config.store : undefined;
  if (!storeConfig) throw new Error("startPgHooksRuntime needs hooks.store.kind postgres");
  let stopping = false;
  const isShuttingDown = (): boolean => stopping || opts.hostStopping();
  const log = logs.forModule("store");
  const store = await openPostgresStore({
    url: opts.storeUrl,
    logger: log,
    storeBodies: config.ledger.storeBodies,
    poolMax: storeConfig.poolMax,
    connectTimeoutMs: storeConfig.connectTimeoutMs,
  });
  let local: LocalOutbox | undefined;
  try {
    local = openLocalOutbox(opts);
  } catch (e) {
    await store.close();
    throw e;
  }
  const outbox = local?.outbox;
  const { guard, receiver } = createPgIdempotencyGuard({ store, ttlSeconds: config.idempotency.ttlSeconds, logger: logs.forModule("idempotency") });
  const queue = createRunIntake({ store: receiver, config: config.runs, mainKey: runtime.sessions.mainKey, logger: logs.forModule("runs"), isShuttingDown });
  const dispatcher = createDispatcher({ config, runtime, queue, wakes: receiver, isShuttingDown, logger: logs.forModule("dispatch") });
  const accept = createAcceptFor({ config, runtime, dispatcher, mappings: opts.mappings, idempotency: guard });
  const ledgerWriter = createPgLedgerWriter({ accept: store.accept, logger: logs.forModule("ledger") });
  const ledger = pgLedgerAccess(opts, store, ledgerWriter, accept);
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
    idempotency: guard,
    accept,
    runs: { get: (id) => store.runs.get(id) },
    ratePolicy: createRatePolicy(config, { logger: logs.forModule("rate-limit") }),
    isShuttingDown,
    // The hook metrics are not counted over the Postgres store (yet).
    metrics: NO_METRICS,
    keys: opts.keys,
  });

  let consumer: RunConsumer | undefined;
  if (opts.role === "consumer") {
    consumer = createRunConsumer({
      runs: store.runs,
      wakes: store.wakes,
      executor: createRunExecutor({ runtime, logger: logs.forModule("runs"), emitter, keys: opts.keys, ...(outbox ? { outbox } : {}) }),
      runtime,
      owner: ownerName(),
      leaseMs: storeConfig.leaseSeconds * 1000,
      maxConcurrent: config.runs.maxConcurrent,
      retryInterrupted: config.runs.retryInterrupted,
      logger: logs.forModule("runs"),
      emitter,
      keys: opts.keys,
      ...(local ? { outbox: local.outbox, keptWakes: local.keptWakes } : {}),
    });
  }
  const background = createBackground(store, opts, log);
  log.info("hooks served over the Postgres store", { where: store.where, role: opts.role });

  return {
    handler,
    ledger,
    remote: true,
    async resume() {
      background.start();
      if (!consumer) return;
      // What the outbox kept from before this start first, as over SQLite (hooks-runtime.ts).
      await outbox?.handPending(WAKE_HEARTBEAT_REASON);
      await consumer.start();
      store.listen((reason) => consumer!.wake(reason));
    },
    async stop() {
      stopping = true;
      background.stop();
      outbox?.close();
      await consumer?.stop(config.runs.shutdownGraceSeconds * 1000);
      await ledgerWriter.stop();
      await store.close();
      local?.close();
    },
  };
}

/** The ledger's search index and the pruning of ledger rows, finished runs and expired keys. */
function createBackground(store: PostgresStore, opts: PgRuntimeOptions, log: ModuleLogger): { start(): void; stop(): void } {
  const { config } = opts;
  const timers: NodeJS.Timeout[] = [];
  const failed = (what: string) => (e: unknown) => log.warn(`${what} failed; tried again later`, { error: (e as Error).message });
  let indexing = false;
  let pruning = false;
  const index = (): void => {
    if (indexing) return;
    indexing = true;
    void (async () => {
      while ((await store.ledger.index()) > 0);
    })()
      .catch(failed("indexing the ledger for search"))
      .finally(() => (indexing = false));
  };
  const prune = (): void => {
    if (pruning) return;
    pruning = true;
    const now = Date.now();
    void (async () => {
      await store.ledger.prune({ retentionDays: config.ledger.retentionDays, maxEntries: config.ledger.maxEntries, now });
      await store.runs.prune({ retentionDays: config.runs.retentionDays, maxFinished: config.runs.maxFinished, now });
    })()
      .catch(failed("pruning the ledger and finished runs"))
      .finally(() => (pruning = false));
  };
  return {
    start() {
      timers.push(setInterval(index, INDEX_EVERY_MS), setInterval(prune, PRUNE_EVERY_MS));
      for (const t of timers) t.unref();
    },
    stop() {
      for (const t of timers) clearInterval(t);
    },
  };
}
