/** Request ids: every response carries `X-Request-Id`. */
import { randomUUID } from "node:crypto";

export const REQUEST_ID_HEADER = "X-Request-Id";

/** An incoming id is kept when it is short and plain (a proxy's correlation id). */
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The caller's `X-Request-Id` when it is acceptable, else a fresh one.
 *
 * @example resolveRequestId(undefined, () => "id-1") // "id-1"
 */
export function resolveRequestId(incoming: string | string[] | undefined, idGen: () => string = randomUUID): string {
  return typeof incoming === "string" && ACCEPTABLE.test(incoming) ? incoming : idGen();
}
