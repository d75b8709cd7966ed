/**
 * One verifier per mapping with `verify` (SPEC §10), built once at activation from
 * resolved secrets (a list: any one verifies, for rotation).
 *
 * @example
 *   const verify = createVerifier({ scheme: "github", secrets: [process.env.GH_SECRET!] });
 *   const failure = verify({ headers, rawBody }); // undefined when verified
 */
import { githubVerifier, shopifyVerifier, createBodyHmacVerifier } from "./hmac-schemes";
import { standardWebhooksKey, standardWebhooksVerifier } from "./standard-webhooks";
import { slackVerifier, stripeVerifier } from "./timestamped-schemes";
import { tokenHeaderVerifier } from "./token-header";
import { DEFAULT_TOLERANCE_SECONDS, type Verifier, type VerifyScheme } from "./types";

export interface VerifierConfig {
  scheme: VerifyScheme;
  /** Resolved secrets, at least one. */
  secrets: readonly string[];
  /** For timestamped schemes; default 300. */
  toleranceSeconds?: number;
  /** `hmac-sha256` and `token-header`: the header carrying the signature or token. */
  header?: string;
  /** `hmac-sha256`: text before the digest (e.g. `sha256=`); default none. */
  prefix?: string;
  /** `hmac-sha256`: digest encoding; default hex. */
  encoding?: "hex" | "base64";
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
}

/** Shortest verify secret accepted, in bytes (the hook token needs 16 characters too). */
export const MIN_VERIFY_SECRET_BYTES = 16;

/**
 * The length in bytes of the key a scheme signs with: a `whsec_<base64>` (or base64)
 * Standard Webhooks secret by its decoded key, any other secret by its UTF-8 bytes.
 * Undefined when a Standard Webhooks secret does not decode.
 *
 * @example verifySecretBytes("standard-webhooks", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") // 24
 */
export function verifySecretBytes(scheme: VerifyScheme, secret: string): number | undefined {
  if (scheme !== "standard-webhooks") return Buffer.byteLength(secret, "utf8");
  try {
    return standardWebhooksKey(secret).length;
  } catch {
    return undefined;
  }
}

export function createVerifier(config: VerifierConfig): Verifier {
  if (config.secrets.length === 0) throw new Error("a verifier needs at least one secret");
  const timed = { secrets: config.secrets, toleranceSeconds: config.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS, now: config.now ?? Date.now };
  switch (config.scheme) {
    case "github":
      return githubVerifier(config.secrets);
    case "shopify":
      return shopifyVerifier(config.secrets);
    case "standard-webhooks":
      return standardWebhooksVerifier(timed);
    case "stripe":
      return stripeVerifier(timed);
    case "slack":
      return slackVerifier(timed);
    case "hmac-sha256":
      return createBodyHmacVerifier({
        header: requireHeader(config),
        prefix: config.prefix ?? "",
        encoding: config.encoding ?? "hex",
        secrets: config.secrets,
      });
    case "token-header":
      return tokenHeaderVerifier({ header: requireHeader(config), secrets: config.secrets });
  }
}

function requireHeader(config: VerifierConfig): string {
  if (!config.header) throw new Error(`verify scheme ${config.scheme} needs a header`);
  return config.header;
}
