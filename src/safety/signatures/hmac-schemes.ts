/**
 * Schemes that sign the raw body alone with HMAC-SHA256 (SPEC §10): `github`
 * (`X-Hub-Signature-256: sha256=<hex>`), `shopify` (`X-Shopify-Hmac-Sha256: <base64>`)
 * and the generic `hmac-sha256` (a named header, optional prefix, hex or base64).
 * GitHub's own verifier (@octokit/webhooks-methods) computes exactly this; it ships
 * as an ES module only, so the same computation is written here with node:crypto.
 */
import { decodeDigest, hmacSha256, matchesAny } from "./compare";
import { invalid, type SignedRequest, type Verifier } from "./types";

export interface BodyHmacOptions {
  /** Header as the sender spells it (matched case-insensitively). */
  header: string;
  /** Text before the digest, e.g. `sha256=`; empty for none. */
  prefix: string;
  encoding: "hex" | "base64";
  secrets: readonly string[];
}

const DIGEST_FORM = { hex: "64 hexadecimal digits", base64: "a base64 SHA-256 digest" } as const;

export function createBodyHmacVerifier(opts: BodyHmacOptions): Verifier {
  const name = opts.header.toLowerCase();
  const form = `${opts.prefix}<${DIGEST_FORM[opts.encoding]}>`;
  return (req: SignedRequest) => {
    const value = req.headers[name];
    if (value === undefined || value === "") return invalid(opts.header, `${opts.header} is missing`);
    const digest = value.startsWith(opts.prefix) ? decodeDigest(value.slice(opts.prefix.length).trim(), opts.encoding) : undefined;
    if (!digest || digest.length !== 32) return invalid(opts.header, `${opts.header} must be ${form}`);
    const expected = opts.secrets.map((s) => hmacSha256(s, req.rawBody));
    return matchesAny(digest, expected) ? undefined : invalid(opts.header, `${opts.header} does not match the request body`);
  };
}

export const githubVerifier = (secrets: readonly string[]): Verifier =>
  createBodyHmacVerifier({ header: "X-Hub-Signature-256", prefix: "sha256=", encoding: "hex", secrets });

export const shopifyVerifier = (secrets: readonly string[]): Verifier =>
  createBodyHmacVerifier({ header: "X-Shopify-Hmac-Sha256", prefix: "", encoding: "base64", secrets });
