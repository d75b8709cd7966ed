/** The size rule of hook bodies (SPEC §4.1, `hooks.maxBodyBytes`). */
import { hookErrors, type HookError } from "../../core/errors";

/**
 * The size rule of a body (SPEC §4.1, `hooks.maxBodyBytes`): the 413 for `size` bytes over `limit`,
 * else undefined. One rule for a body being read (its declared length, then what has arrived) and
 * for a body already in hand (a replay's stored body, the dry run's: src/intake/accept.ts; the body reader, src/intake/io/read-body.ts),
 * so a replay answers what its live request would answer today.
 *
 * @example bodySizeRefusal(300000, 262144) // 413 payload_too_large naming hooks.maxBodyBytes
 */
export function bodySizeRefusal(size: number, limit: number): HookError | undefined {
  return size > limit ? hookErrors.bodyTooLarge({ limit }) : undefined;
}
