/**
 * `token-header` (SPEC §10): a static secret in a named header, e.g. GitLab's
 * `X-Gitlab-Token`. Both sides are hashed under a per-process key before the
 * comparison, so it takes the same time whatever the presented length.
 */
import { randomBytes } from "node:crypto";
import { hmacSha256, matchesAny } from "./compare";
import { invalid, type SignedRequest, type Verifier } from "./types";

export function tokenHeaderVerifier(opts: { header: string; secrets: readonly string[] }): Verifier {
  const key = randomBytes(32);
  const expected = opts.secrets.map((s) => hmacSha256(key, s));
  const name = opts.header.toLowerCase();
  return (req: SignedRequest) => {
    const value = req.headers[name];
    if (value === undefined || value === "") return invalid(opts.header, `${opts.header} is missing`);
    return matchesAny(hmacSha256(key, value), expected) ? undefined : invalid(opts.header, `${opts.header} does not match the configured secret`);
  };
}
