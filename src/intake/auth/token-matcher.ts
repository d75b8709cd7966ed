/** Constant-time token comparison over fixed-length digests. */
import { hash, timingSafeEqual } from "node:crypto";

/** One-shot SHA-256 (`crypto.hash`, Node ≥ 20.12): no Hash object per request. */
const digest = (s: string): Buffer => hash("sha256", s, "buffer");

/**
 * Returns a predicate that compares a candidate with `secret` in time that does
 * not depend on where they differ or on their lengths (both are hashed to 32
 * bytes first). An empty secret matches nothing.
 *
 * @example const matches = createTokenMatcher(config.token); matches(presented.token)
 */
export function createTokenMatcher(secret: string): (candidate: string) => boolean {
  const expected = digest(secret);
  return (candidate) => {
    const same = timingSafeEqual(digest(candidate), expected);
    return same && secret.length > 0;
  };
}
