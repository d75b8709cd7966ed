/**
 * The Postgres store's connections: one bounded `pg` pool (`max` connections, a
 * connection wait of `connectTimeoutMs` before the request gets 503, a statement timeout
 * so a stuck server never holds a request for ever) and its failures turned into the
 * store's terms (pg-errors.ts). An idle connection the server dropped (a Postgres
 * restart) is reported on the pool's `error` event — logged, never an uncaught
 * exception — and replaced by a new one at the next query; one lost while a
 * `transaction` holds it fails that transaction and is not given back. The store
 * recovers without a restart of the gateway.
 *
 * The url's password is never logged: `describeUrl()` names host, port and database only.
 *
 * @example
 *   const pool = openPgPool({ url, logger });
 *   const { rows } = await pool.query("SELECT 1");
 */
import pg from "pg";
import type { ModuleLogger } from "../../core/logger";
import { asStorageFault } from "./pg-errors";

export interface PgPoolOptions {
  url: string;
  logger: ModuleLogger;
  /** Most connections at once. Default 10. */
  max?: number;
  /** How long a query waits for a connection (and a new connection for the server) before it fails as unavailable. Default 5000. */
  connectTimeoutMs?: number;
  /** `statement_timeout` of every connection. Default 30000. */
  statementTimeoutMs?: number;
  /** Shown in `pg_stat_activity`. Default "inbound-webhooks". */
  applicationName?: string;
}

export interface PgPool {
  /** One statement (its own transaction unless inside `transaction`); storage faults as PostgresUnavailableError. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** `host:port/database` of the url (no user, no password), for messages. */
  readonly where: string;
  /** Connections open, idle and waited for (for metrics and tests). */
  stats(): { total: number; idle: number; waiting: number };
  end(): Promise<void>;
}

export const DEFAULT_PG_POOL_MAX = 10;

/** `host:port/database` of a Postgres url, without credentials; the text itself when it does not parse. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || "localhost"}:${u.port || "5432"}${u.pathname || "/"}`;
  } catch {
    return "(a url that does not parse)";
  }
}

export function openPgPool(options: PgPoolOptions): PgPool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? DEFAULT_PG_POOL_MAX,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    application_name: options.applicationName ?? "inbound-webhooks",
    keepAlive: true,
  });
  const where = describeUrl(options.url);
  let lastReported = 0;
  pool.on("error", (e) => {
    // An idle connection lost (a restart of the server): the pool opens a new one when needed.
    const now = Date.now();
    if (now - lastReported < 5000) return;
    lastReported = now;
    options.logger.warn("a Postgres connection was lost; the next query opens a new one", { where, error: e.message, code: (e as { code?: string }).code });
  });
  return {
    where,
    async query(text, values) {
      try {
        return await pool.query(text, values);
      } catch (e) {
        throw asStorageFault(e);
      }
    },
    async transaction(work) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (e) {
        throw asStorageFault(e);
      }
      let broken: unknown;
      // The pool listens for the errors of idle connections only: a connection lost while checked out (Postgres stopped
      // in the middle of a transaction) emits `error` on the client, an uncaught exception without this listener.
      const lost = (e: Error): void => {
        broken = e;
      };
      client.on("error", lost);
      try {
        await client.query("BEGIN");
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (e) {
        try {
          await client.query("ROLLBACK");
        } catch (rollback) {
          broken = rollback;
        }
        throw asStorageFault(e);
      } finally {
        client.off("error", lost);
        // A connection that was lost or whose rollback failed is not given back to the pool.
        client.release(broken instanceof Error ? broken : undefined);
      }
    },
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async end() {
      await pool.end();
    },
  };
}
