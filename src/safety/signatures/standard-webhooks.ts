/**
 * Standard Webhooks (SPEC §10), also sent by Svix with `svix-` header names:
 * `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64> [v1,<base64> …]`
 * over `<id>.<timestamp>.<body>`, secrets `whsec_<base64>`. The reference library
 * (`standardwebhooks`) parses the secret and computes the signature; comparison
 * and the freshness window (`toleranceSeconds`, which the library fixes at 300 s)
 * are ours.
 */
import { Webhook } from "standardwebhooks";
import { decodeDigest, matchesAny } from "./compare";
import { checkTimestamp, TS_DIGITS } from "./timestamp";
import { invalid, type SignedRequest, type Verifier } from "./types";
import type { TimestampedOptions } from "./timestamped-schemes";


/** The header names a request uses: `webhook-*`, else `svix-*` when those are present. */
function namesOf(headers: Readonly<Record<string, string>>): { id: string; timestamp: string; signature: string } {
  const prefix = headers["webhook-signature"] === undefined && headers["svix-signature"] !== undefined ? "svix" : "webhook";
  return { id: `${prefix}-id`, timestamp: `${prefix}-timestamp`, signature: `${prefix}-signature` };
}

/** Parses each secret once; throws (at start) on a secret that is not `whsec_<base64>` or base64. */
export function standardWebhooksVerifier(opts: TimestampedOptions): Verifier {
  const hooks = opts.secrets.map((s) => new Webhook(s));
  return (req: SignedRequest) => {
    const names = namesOf(req.headers);
    const id = req.headers[names.id];
    const signature = req.headers[names.signature];
    const ts = req.headers[names.timestamp];
    if (signature === undefined || signature === "") return invalid(names.signature, `${names.signature} is missing`);
    if (id === undefined || id === "") return invalid(names.id, `${names.id} is missing`);
    if (ts === undefined || !TS_DIGITS.test(ts)) return checkTimestamp(names.timestamp, ts, opts.now(), opts.toleranceSeconds);
    const presented = signature
      .split(" ")
      .filter((entry) => entry.startsWith("v1,"))
      .map((entry) => decodeDigest(entry.slice(3), "base64"))
      .filter((d): d is Buffer => d !== undefined);
    if (presented.length === 0) return invalid(names.signature, `${names.signature} must list v1,<base64 signature> entries separated by spaces`);
    const at = new Date(Number(ts) * 1000);
    const body = req.rawBody.toString("utf8");
    const expected = hooks.map((h) => Buffer.from(h.sign(id, at, body).slice(3), "base64"));
    if (!presented.some((p) => matchesAny(p, expected))) return invalid(names.signature, `${names.signature} has no v1 signature that matches the request`);
    return checkTimestamp(names.timestamp, ts, opts.now(), opts.toleranceSeconds);
  };
}
