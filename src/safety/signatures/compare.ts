/**
 * Constant-time comparison of a presented signature with the expected one. The
 * presented value is decoded first; a value of the wrong length still costs one
 * comparison, so timing never tells a sender how close a guess was.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** HMAC-SHA256 of `parts` (concatenated) under `secret`. */
export function hmacSha256(secret: string | Uint8Array, ...parts: Array<string | Buffer>): Buffer {
  const h = createHmac("sha256", secret);
  for (const p of parts) h.update(p);
  return h.digest();
}

/** True when `presented` equals `expected`, in time independent of where they differ. */
export function sameBytes(presented: Buffer, expected: Buffer): boolean {
  if (presented.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(presented, expected);
}

const HEX = /^[0-9a-f]+$/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Decodes a hex or base64 digest; `undefined` when it is not well-formed. */
export function decodeDigest(value: string, encoding: "hex" | "base64"): Buffer | undefined {
  if (encoding === "hex") return value.length % 2 === 0 && HEX.test(value) ? Buffer.from(value, "hex") : undefined;
  return value.length % 4 === 0 && BASE64.test(value) ? Buffer.from(value, "base64") : undefined;
}

/** True when any expected digest equals the presented one (every candidate is compared). */
export function matchesAny(presented: Buffer, expected: readonly Buffer[]): boolean {
  let found = false;
  for (const e of expected) found = sameBytes(presented, e) || found;
  return found;
}
