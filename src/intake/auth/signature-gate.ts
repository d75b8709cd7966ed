/**
 * Sender verification in the pipeline (SPEC §10): one verifier per verified hook
 * path, built when the gateway starts serving hooks — the moment the secrets are
 * read (plain text, env, file, or a list of them for rotation). An unset variable,
 * an unreadable file or a secret the scheme cannot use fails the start with one
 * ConfigError naming each key, never a value.
 *
 * @example
 *   const gate = createSignatureGate(mappings.verifications(), { configDir });
 *   gate.forHook("github")?.verify({ headers, rawBody }) // undefined when verified
 */
import { normaliseMatchPath } from "../../config/paths";
import { resolveSecret, type SecretContext } from "../../config/secrets";
import type { VerifyConfig } from "../../config/types";
import { ConfigError } from "../../core/errors";
import { problemLine, sortProblems, type KeyedProblem } from "../../host-contract/config-rules";
import type { PathVerification } from "../../mappings/path-verifications";
import { createVerifier, MIN_VERIFY_SECRET_BYTES, verifySecretBytes } from "../../safety/signatures/create-verifier";
import type { Verifier, VerifyScheme } from "../../safety/signatures/types";

export interface PathVerifier {
  scheme: VerifyScheme;
  verify: Verifier;
}

export interface SignatureGate {
  /** The verifier of a hook name (the sub-path after `hooks.path`), if its path is verified. */
  forHook(name: string): PathVerifier | undefined;
  /** Every secret read (for the redaction rule: they never appear in a log line or ledger row). */
  readonly secrets: readonly string[];
}

export interface SignatureGateContext extends SecretContext {
  /** Milliseconds since the epoch, for timestamped schemes; default Date.now. */
  now?: () => number;
}

/** Why a secret is too short for `scheme` (SPEC §10: at least 16 bytes, a whsec_ secret by its decoded key), or undefined. */
function shortSecretRule(scheme: VerifyScheme, secret: string): string | undefined {
  const bytes = verifySecretBytes(scheme, secret);
  if (bytes === undefined || bytes >= MIN_VERIFY_SECRET_BYTES) return undefined;
  return scheme === "standard-webhooks"
    ? `must decode to at least ${MIN_VERIFY_SECRET_BYTES} bytes (whsec_ followed by the base64 of a random key)`
    : `must be at least ${MIN_VERIFY_SECRET_BYTES} bytes long (use a random value, e.g. openssl rand -hex 32)`;
}

/** Reads every secret of one verify block; problems name `secretKey` (and `[i]` in a list). */
function readSecrets(config: VerifyConfig, secretKey: string, ctx: SecretContext, problems: KeyedProblem[]): string[] {
  const source = config.secret;
  const list = Array.isArray(source) ? source.map((s, i) => ({ s, key: `${secretKey}[${i}]` })) : [{ s: source, key: secretKey }];
  const out: string[] = [];
  for (const { s, key } of list) {
    const r = resolveSecret(s, ctx);
    const short = r.ok ? shortSecretRule(config.scheme, r.value) : undefined;
    if (!r.ok) problems.push({ key, rule: r.reason });
    else if (short) problems.push({ key, rule: short });
    else out.push(r.value);
  }
  return out;
}

function build(config: VerifyConfig, secrets: string[], now: (() => number) | undefined): Verifier {
  return createVerifier({
    scheme: config.scheme,
    secrets,
    ...(config.toleranceSeconds !== undefined ? { toleranceSeconds: config.toleranceSeconds } : {}),
    ...(config.header !== undefined ? { header: config.header } : {}),
    ...(config.prefix !== undefined ? { prefix: config.prefix } : {}),
    ...(config.encoding !== undefined ? { encoding: config.encoding } : {}),
    ...(now ? { now } : {}),
  });
}

/** Throws one ConfigError listing every unreadable or unusable secret. */
export function createSignatureGate(verifications: readonly PathVerification[], ctx: SignatureGateContext): SignatureGate {
  const problems: KeyedProblem[] = [];
  const byPath = new Map<string, PathVerifier>();
  const all: string[] = [];
  for (const v of verifications) {
    const before = problems.length;
    const secrets = readSecrets(v.config, v.secretKey, ctx, problems);
    if (problems.length > before) continue;
    all.push(...secrets);
    try {
      byPath.set(v.path, { scheme: v.config.scheme, verify: build(v.config, secrets, ctx.now) });
    } catch {
      // Only the standard-webhooks secret is parsed up front; its parse error is not shown (it could quote the secret).
      problems.push({ key: v.secretKey, rule: `is not a valid ${v.config.scheme} secret (expected whsec_<base64> or base64)` });
    }
  }
  if (problems.length > 0) throw new ConfigError(sortProblems(problems).map(problemLine).join("\n"));
  return { forHook: (name) => byPath.get(normaliseMatchPath(name)), secrets: all };
}
