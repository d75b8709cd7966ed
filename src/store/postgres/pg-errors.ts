/**
 * Postgres failures in the store's terms (SPEC §7 "Storage faults", §16): a failure
 * of the server or of the way to it — refused or dropped connection, a server shutting
 * down or starting up, no free connection in the bounded pool in time, a full disk on
 * the server — is a storage fault, answered 503 `storage_unavailable` with `Retry-After`
 * while nothing of the request took effect. Such errors are wrapped into one with the
 * code `PG_<cause>` (`PG_ECONNREFUSED`, `PG_57P01` …), which src/core/storage-fault.ts
 * reads; any other error (a bug, a constraint) is left as it is.
 *
 * @example
 *   try { await pool.query(sql) } catch (e) { throw asStorageFault(e) } // PG_ECONNREFUSED …
 */

/** SQLSTATE classes and codes that mean "the server or the way to it failed", not "the statement was wrong". */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P|58|XX)|^(40001|40P01|55P03|25006|57014)$/;
/** Socket errors of the client. */
const UNAVAILABLE_ERRNO = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ECONNABORTED)$/;
/** Messages of node-postgres that carry no code. */
const UNAVAILABLE_MESSAGES: ReadonlyArray<[RegExp, string]> = [
  [/Connection terminated/i, "CONNECTION_TERMINATED"],
  [/timeout exceeded when trying to connect/i, "POOL_TIMEOUT"],
  [/Client has encountered a connection error/i, "CONNECTION_ERROR"],
  [/Cannot use a pool after calling end/i, "POOL_CLOSED"],
  [/Client was closed and is not queryable/i, "CONNECTION_CLOSED"],
  [/Query read timeout/i, "QUERY_TIMEOUT"],
];

/** A storage fault of the Postgres store: `code` is `PG_<cause>`; the original error is its `cause`. */
export class PostgresUnavailableError extends Error {
  readonly code: string;
  constructor(cause: string, original: unknown) {
    super(`Postgres is unavailable (${cause}): ${(original as Error)?.message ?? String(original)}`, { cause: original });
    this.name = "PostgresUnavailableError";
    this.code = `PG_${cause}`;
  }
}

/** The cause of an error that means Postgres is unavailable ("57P01", "ECONNREFUSED" …), or undefined. */
export function unavailableCause(e: unknown): string | undefined {
  if (e instanceof PostgresUnavailableError) return e.code.slice(3);
  const code = (e as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && (UNAVAILABLE_ERRNO.test(code) || (/^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_SQLSTATE.test(code)))) return code;
  // An AggregateError (several addresses tried) carries the socket errors inside.
  const inner = (e as { errors?: unknown[] } | undefined)?.errors;
  if (Array.isArray(inner)) for (const i of inner) if (unavailableCause(i)) return unavailableCause(i);
  const message = (e as Error | undefined)?.message ?? "";
  for (const [re, name] of UNAVAILABLE_MESSAGES) if (re.test(message)) return name;
  return undefined;
}

/** The error a store operation throws: a storage fault wrapped as PostgresUnavailableError, anything else as it was. */
export function asStorageFault(e: unknown): unknown {
  if (e instanceof PostgresUnavailableError) return e;
  const cause = unavailableCause(e);
  return cause === undefined ? e : new PostgresUnavailableError(cause, e);
}
