/**
 * Schemes whose signature covers a timestamp (SPEC §10): `stripe`
 * (`Stripe-Signature: t=<ts>,v1=<hex>[,v1=…]` over `<ts>.<body>`) and `slack`
 * (`X-Slack-Signature: v0=<hex>` over `v0:<ts>:<body>`, timestamp in
 * `X-Slack-Request-Timestamp`). The signature is checked before the timestamp, so
 * a stale answer (`signature_expired`) is only given to a genuine signature.
 */
import { decodeDigest, hmacSha256, matchesAny } from "./compare";
import { checkTimestamp, TS_DIGITS } from "./timestamp";
import { invalid, type SignedRequest, type Verifier } from "./types";

export interface TimestampedOptions {
  secrets: readonly string[];
  toleranceSeconds: number;
  now: () => number;
}

const STRIPE = "Stripe-Signature";

/** `t=…,v1=…` → the timestamp and every v1 digest (other schemes' entries are ignored). */
function parseStripeHeader(value: string): { t?: string; v1: string[] } {
  const out: { t?: string; v1: string[] } = { v1: [] };
  for (const part of value.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === "t") out.t = val;
    else if (key === "v1") out.v1.push(val);
  }
  return out;
}

export function stripeVerifier(opts: TimestampedOptions): Verifier {
  return (req: SignedRequest) => {
    const value = req.headers[STRIPE.toLowerCase()];
    if (value === undefined || value === "") return invalid(STRIPE, `${STRIPE} is missing`);
    const { t, v1 } = parseStripeHeader(value);
    const digests = v1.map((d) => decodeDigest(d, "hex")).filter((d): d is Buffer => d !== undefined && d.length === 32);
    if (t === undefined || !TS_DIGITS.test(t) || digests.length === 0) return invalid(STRIPE, `${STRIPE} must be t=<Unix seconds>,v1=<64 hexadecimal digits>`);
    const expected = opts.secrets.map((s) => hmacSha256(s, `${t}.`, req.rawBody));
    if (!digests.some((d) => matchesAny(d, expected))) return invalid(STRIPE, `${STRIPE} has no v1 signature that matches the request body`);
    return checkTimestamp(STRIPE, t, opts.now(), opts.toleranceSeconds);
  };
}

const SLACK_SIG = "X-Slack-Signature";
const SLACK_TS = "X-Slack-Request-Timestamp";

export function slackVerifier(opts: TimestampedOptions): Verifier {
  return (req: SignedRequest) => {
    const value = req.headers[SLACK_SIG.toLowerCase()];
    if (value === undefined || value === "") return invalid(SLACK_SIG, `${SLACK_SIG} is missing`);
    const digest = value.startsWith("v0=") ? decodeDigest(value.slice(3), "hex") : undefined;
    if (!digest || digest.length !== 32) return invalid(SLACK_SIG, `${SLACK_SIG} must be v0=<64 hexadecimal digits>`);
    const ts = req.headers[SLACK_TS.toLowerCase()];
    if (ts === undefined || !TS_DIGITS.test(ts)) return checkTimestamp(SLACK_TS, ts, opts.now(), opts.toleranceSeconds);
    const expected = opts.secrets.map((s) => hmacSha256(s, `v0:${ts}:`, req.rawBody));
    if (!matchesAny(digest, expected)) return invalid(SLACK_SIG, `${SLACK_SIG} does not match the request body and ${SLACK_TS}`);
    return checkTimestamp(SLACK_TS, ts, opts.now(), opts.toleranceSeconds);
  };
}
