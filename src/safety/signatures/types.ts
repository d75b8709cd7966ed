/**
 * Sender verification (SPEC §10): the request as a verifier sees it, and what a
 * failed verification reports. A failure names the header and what was wrong in
 * one sentence — never the expected value.
 */

/** The schemes a mapping's `verify.scheme` may name. */
export const VERIFY_SCHEMES = ["github", "standard-webhooks", "stripe", "slack", "shopify", "hmac-sha256", "token-header"] as const;
export type VerifyScheme = (typeof VERIFY_SCHEMES)[number];

/** Schemes whose signature carries a timestamp checked against `toleranceSeconds`. */
export const TIMESTAMPED_SCHEMES: ReadonlySet<VerifyScheme> = new Set(["standard-webhooks", "stripe", "slack"]);

/** Default freshness window of timestamped schemes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface SignedRequest {
  /** Lower-cased header names; a repeated header joined with ", " (as Node does). */
  headers: Readonly<Record<string, string>>;
  /** The request body exactly as received. */
  rawBody: Buffer;
}

export interface VerifyFailure {
  code: "invalid_signature" | "signature_expired";
  /** The header that was missing, malformed, wrong or stale (as the sender spells it). */
  header: string;
  /** One sentence, e.g. "X-Hub-Signature-256 does not match the request body". */
  message: string;
}

/** `undefined` when the request is verified. */
export type Verifier = (req: SignedRequest) => VerifyFailure | undefined;

export const invalid = (header: string, message: string): VerifyFailure => ({ code: "invalid_signature", header, message });
export const expired = (header: string, message: string): VerifyFailure => ({ code: "signature_expired", header, message });
