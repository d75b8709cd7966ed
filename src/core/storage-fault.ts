/**
 * Storage faults (SPEC §7): a write that failed because the storage did — a full
 * disk, an I/O error, a read-only or locked database — as opposed to a bug. The
 * request that needed the write is answered 503 `storage_unavailable` with
 * `Retry-After`, nothing of it takes effect, and the log names the cause code.
 *
 * @example
 *   try { store.insert(run) } catch (e) {
 *     if (storageFaultCode(e)) return err(storageUnavailable(e));
 *     throw e;
 *   }
 */
import { hookErrors, type HookError } from "./errors";

/** `Retry-After` (seconds) of a `storage_unavailable` answer. */
export const STORAGE_RETRY_AFTER_SECONDS = 30;

/**
 * OS and SQLite error codes that mean "the storage failed", not "the request was wrong";
 * `PG_<cause>` is the Postgres store's (src/store/postgres/pg-errors.ts: the server or the
 * way to it failed).
 */
const STORAGE_CODES =
  /^(ENOSPC|EDQUOT|EIO|EROFS|EFBIG|ENFILE|EMFILE|SQLITE_(FULL|IOERR|CANTOPEN|READONLY|BUSY|LOCKED|CORRUPT|NOTADB)(_[A-Z_]+)?|PG_[0-9A-Z_]+)$/;

/** The `code` of an error (or of its cause chain), e.g. "ENOSPC" or "SQLITE_FULL"; undefined when it has none. */
export function errorCode(e: unknown): string | undefined {
  for (let cur: unknown = e, depth = 0; cur && typeof cur === "object" && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** The storage cause code of an error, or undefined when it is not a storage fault. */
export function storageFaultCode(e: unknown): string | undefined {
  const code = errorCode(e);
  return code !== undefined && STORAGE_CODES.test(code) ? code : undefined;
}

/** The 503 `storage_unavailable` answer, with `Retry-After` and the failure as its cause (never shown to the client). */
export function storageUnavailable(cause: unknown): HookError {
  return hookErrors.storageUnavailable({ headers: { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) }, cause });
}
