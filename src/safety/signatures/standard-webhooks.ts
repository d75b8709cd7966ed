/**
 * Standard Webhooks (SPEC §10), also sent by Svix with `svix-` header names:
 * `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64> [v1,<base64> …]`
 * over `<id>.<timestamp>.<body>`, secrets `whsec_<base64>`. Computed here over the
 * exact bytes received and the timestamp exactly as sent: the reference library
 * (`standardwebhooks`, which the tests sign with) decodes the body as UTF-8 and
 * re-formats the timestamp before signing, which SPEC §10's "raw request bytes"
 * does not allow, and fixes the freshness window at 300 s.
 */
import { decodeDigest, hmacSha256, matchesAny } from "./compare";
import { checkTimestamp, TS_DIGITS } from "./timestamp";
import { invalid, type SignedRequest, type Verifier } from "./types";
import type { TimestampedOptions } from "./timestamped-schemes";

/** The header names a request uses: `webhook-*`, else `svix-*` when those are present. */
function namesOf(headers: Readonly<Record<string, string>>): { id: string; timestamp: string; signature: string } {
  const prefix = headers["webhook-signature"] === undefined && headers["svix-signature"] !== undefined ? "svix" : "webhook";
  return { id: `${prefix}-id`, timestamp: `${prefix}-timestamp`, signature: `${prefix}-signature` };
}

/**
 * The header whose value the signature covers as the message id (`webhook-id`, or
 * `svix-id` for Svix's names): a verified request's idempotency key, which a
 * replayer cannot change without breaking the signature.
 */
export function signedMessageIdHeader(headers: Readonly<Record<string, string>>): string {
  return namesOf(headers).id;
}

const SECRET_PREFIX = "whsec_";

/**
 * The key of a `whsec_<base64>` (or bare base64) secret, with or without the base64
 * padding (the `standardwebhooks` and `svix` libraries take both); throws on anything else.
 */
export function standardWebhooksKey(secret: string): Buffer {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const missing = (4 - (b64.length % 4)) % 4;
  const key = missing === 3 ? undefined : decodeDigest(b64 + "=".repeat(missing), "base64");
  if (!key || key.length === 0) throw new Error("not a Standard Webhooks secret (whsec_<base64>)");
  return key;
}

/**
 * The v1 digests of a signature list: space-separated `<version>,<signature>` entries,
 * read as the reference libraries read them — what follows a second comma is ignored,
 * so a header sent twice, which Node joins with ", " (`v1,A, v1,B`), keeps both.
 */
function v1Signatures(list: string): Buffer[] {
  const out: Buffer[] = [];
  for (const entry of list.split(" ")) {
    const [version, signature] = entry.split(",", 2);
    const digest = version === "v1" && signature !== undefined ? decodeDigest(signature, "base64") : undefined;
    if (digest) out.push(digest);
  }
  return out;
}

/** Parses each secret once; throws (at start) on a secret that is not `whsec_<base64>` or base64. */
export function standardWebhooksVerifier(opts: TimestampedOptions): Verifier {
  const keys = opts.secrets.map(standardWebhooksKey);
  return (req: SignedRequest) => {
    const names = namesOf(req.headers);
    const id = req.headers[names.id];
    const signature = req.headers[names.signature];
    const ts = req.headers[names.timestamp];
    if (signature === undefined || signature === "") return invalid(names.signature, `${names.signature} is missing`);
    if (id === undefined || id === "") return invalid(names.id, `${names.id} is missing`);
    if (ts === undefined || !TS_DIGITS.test(ts)) return checkTimestamp(names.timestamp, ts, opts.now(), opts.toleranceSeconds);
    const presented = v1Signatures(signature);
    if (presented.length === 0) return invalid(names.signature, `${names.signature} must list v1,<base64 signature> entries separated by spaces`);
    const expected = keys.map((k) => hmacSha256(k, `${id}.${ts}.`, req.rawBody));
    if (!presented.some((p) => matchesAny(p, expected))) return invalid(names.signature, `${names.signature} has no v1 signature that matches the request`);
    return checkTimestamp(names.timestamp, ts, opts.now(), opts.toleranceSeconds);
  };
}
