/**
 * Random hex for ids drawn on the hot path (marker ids, delivery ids). The CSPRNG
 * is called once per 4 KiB of output rather than once per id: one synchronous
 * `randomBytes` call costs about as much as the rest of a wake's id work, and
 * crypto.randomUUID pools its bytes the same way.
 *
 * @example randomHex(16) // 32 hex characters
 */
import { randomBytes } from "node:crypto";

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = POOL_BYTES;

/** `bytes` (1–4096) cryptographically random bytes as 2 × `bytes` lowercase hex characters. */
export function randomHex(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > POOL_BYTES) throw new RangeError(`randomHex: bytes must be an integer from 1 to ${POOL_BYTES}`);
  if (offset + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const hex = pool.toString("hex", offset, offset + bytes);
  offset += bytes;
  return hex;
}
