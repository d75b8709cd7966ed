/**
 * The Postgres store (`hooks.store: { kind: "postgres", url }`, SPEC §16): several
 * receivers and consumers share one database. Opening it checks what a start needs —
 * the url, the server reachable, the user let in, the database there, a server version
 * it supports, the right to create its schema — and fails naming every problem found, in
 * one error (never the password: `host:port/database` only). Then it migrates
 * (pg-migrate.ts) and hands out the parts: the group commit (pg-accept.ts), the runs as
 * consumers claim them (pg-runs.ts), the idempotency records (pg-idempotency.ts), the
 * ledger (pg-ledger.ts), the wakes (pg-wakes.ts) and the wake-ups (pg-listener.ts).
 *
 * At run time a failure of the server or of the way to it is a storage fault (503
 * `storage_unavailable` with `Retry-After`, pg-errors.ts) and the pool connects again
 * by itself once Postgres is back: no restart.
 *
 * @example
 *   const store = await openPostgresStore({ url, logger, storeBodies: true });
 *   await store.accept.stage({ runs: [run] }); // committed once it resolves
 *   await store.close();
 */
import type { ModuleLogger } from "../../core/logger";
import { describeUrl, openPgPool, type PgPool } from "./pg-pool";
import { migratePostgres } from "./pg-migrate";
import { createPgAcceptBatch, type PgAcceptBatch } from "./pg-accept";
import { createPgRuns, type PgRuns } from "./pg-runs";
import { createPgIdempotency, type PgIdempotency } from "./pg-idempotency";
import { createPgLedger, type PgLedger } from "./pg-ledger";
import { createPgWakes, type PgWakes } from "./pg-wakes";
import { startPgListener, type PgListener, type PgWakeReason } from "./pg-listener";
import { unavailableCause } from "./pg-errors";
import { PG_SCHEMA } from "./pg-schema";

/** The oldest Postgres the store runs on (`server_version_num`). */
export const MIN_POSTGRES_VERSION = 120000;

export interface OpenPostgresStoreOptions {
  url: string;
  logger: ModuleLogger;
  /** `hooks.ledger.storeBodies`. */
  storeBodies: boolean;
  /** Most connections of the pool. Default 10. */
  poolMax?: number;
  /** How long a query waits for a connection before it fails as unavailable (and how long the start waits for the server). Default 5000. */
  connectTimeoutMs?: number;
}

export interface PostgresStore {
  /** `host:port/database`, for messages. */
  readonly where: string;
  readonly schemaVersion: number;
  readonly pool: PgPool;
  readonly accept: PgAcceptBatch;
  readonly runs: PgRuns;
  readonly idempotency: PgIdempotency;
  readonly ledger: PgLedger;
  readonly wakes: PgWakes;
  /** Starts the wake-ups of a consumer (LISTEN/NOTIFY, polling every `pollMs`); stopped by `close()` too. */
  listen(onWake: (reason: PgWakeReason) => void, pollMs?: number): PgListener;
  /** Waits for the staged writes, stops the listeners and closes the pool. Idempotent. */
  close(): Promise<void>;
}

/** The sentence for a failure to reach or enter the server at start. */
function startProblem(e: unknown, url: URL, where: string, timeoutMs: number): string {
  const code = (e as { code?: string }).code;
  const user = decodeURIComponent(url.username) || process.env.PGUSER || "(the default user)";
  const database = decodeURIComponent(url.pathname.slice(1)) || user;
  switch (code) {
    case "ECONNREFUSED":
      return `nothing answers at ${where} (ECONNREFUSED): start Postgres there, or correct the host and port of hooks.store.url`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `the host ${url.hostname} of hooks.store.url does not resolve (${code})`;
    case "28P01":
    case "28000":
      return `Postgres at ${where} refused the user ${user} (${code}: ${(e as Error).message}): check the user and password of hooks.store.url and pg_hba.conf`;
    case "3D000":
      return `the database ${database} does not exist at ${where} (3D000): create it (createdb ${database}) or correct hooks.store.url`;
  }
  const cause = unavailableCause(e);
  if (cause === "POOL_TIMEOUT" || cause === "ETIMEDOUT")
    return `Postgres at ${where} did not answer within ${timeoutMs} ms (${cause}): is it running and reachable?`;
  return `cannot use Postgres at ${where}: ${(e as Error).message}${code ? ` (${code})` : ""}`;
}

/** What the server lacks for the store: a supported version, the right to create its schema. Empty when nothing. */
async function serverProblems(pool: PgPool, where: string): Promise<string[]> {
  const problems: string[] = [];
  const { rows } = await pool.query<{ v: string; user: string; db: string; can_create: boolean; has_schema: boolean }>(
    `SELECT current_setting('server_version_num') AS v, current_user AS user, current_database() AS db,
            has_database_privilege(current_database(), 'CREATE') AS can_create,
            EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS has_schema`,
    [PG_SCHEMA],
  );
  const r = rows[0]!;
  if (Number(r.v) < MIN_POSTGRES_VERSION)
    problems.push(`Postgres at ${where} is version ${r.v}; the store needs ${MIN_POSTGRES_VERSION} (Postgres 12) or later`);
  if (!r.has_schema && !r.can_create) {
    problems.push(
      `the user ${r.user} may not create the schema ${PG_SCHEMA} in the database ${r.db} at ${where}: GRANT CREATE ON DATABASE ${r.db} TO ${r.user}, or create the schema for it (CREATE SCHEMA ${PG_SCHEMA} AUTHORIZATION ${r.user})`,
    );
  }
  return problems;
}

export class PostgresStartError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the Postgres store cannot start (hooks.store): ${problems.join("; ")}`);
    this.name = "PostgresStartError";
  }
}

export async function openPostgresStore(options: OpenPostgresStoreOptions): Promise<PostgresStore> {
  const { logger } = options;
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new PostgresStartError(["hooks.store.url is not a url (postgres://user:password@host:port/database)"]);
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new PostgresStartError([`hooks.store.url must start with postgres:// or postgresql:// (it starts with ${url.protocol}//)`]);
  }
  const where = describeUrl(options.url);
  const timeoutMs = options.connectTimeoutMs ?? 5000;
  const pool = openPgPool({ url: options.url, logger, max: options.poolMax, connectTimeoutMs: timeoutMs });
  let schemaVersion: number;
  try {
    let problems: string[];
    try {
      problems = await serverProblems(pool, where);
    } catch (e) {
      problems = [startProblem((e as { cause?: unknown }).cause ?? e, url, where, timeoutMs)];
    }
    if (problems.length > 0) throw new PostgresStartError(problems);
    schemaVersion = await migratePostgres(pool);
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw e;
  }
  logger.info("Postgres store open", { where, schemaVersion, poolMax: options.poolMax ?? 10 });
  const accept = createPgAcceptBatch(pool, { storeBodies: options.storeBodies });
  const listeners = new Set<PgListener>();
  let closed = false;
  return {
    where,
    schemaVersion,
    pool,
    accept,
    runs: createPgRuns(pool, { logger }),
    idempotency: createPgIdempotency(pool),
    ledger: createPgLedger(pool),
    wakes: createPgWakes(pool),
    listen(onWake, pollMs) {
      const l = startPgListener({ url: options.url, logger, onWake, pollMs });
      listeners.add(l);
      return l;
    },
    async close() {
      if (closed) return;
      closed = true;
      await accept.drain().catch(() => undefined);
      await Promise.all([...listeners].map((l) => l.stop()));
      await pool.end();
      logger.info("Postgres store closed", { where });
    },
  };
}
