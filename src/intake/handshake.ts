/**
 * Meta's (WhatsApp, Instagram, Messenger) webhook verification (SPEC §12): a
 * mapping with `handshake: { meta: { verifyToken } }` answers
 * `GET {path}/<name>?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`
 * with the challenge as `text/plain` when the token matches (constant-time
 * compare), else 403 `forbidden`, counted by the auth-failure throttle. It is the
 * only GET a mapped hook accepts, and it needs no hook token. Verify tokens are
 * read when the gateway starts serving hooks, with the hook token and the
 * signature secrets; an unset variable fails the start naming the key.
 */
import { resolveSecret } from "../config/secrets";
import { ConfigError, hookErrors, type HookError } from "../core/errors";
import type { MetaHandshakeConfig } from "../mappings/path-verifications";
import { createTokenMatcher } from "./auth/token-matcher";

export interface MetaHandshake {
  mappingId: string;
  /** The challenge to answer, or the error (403) to refuse with. */
  answer(query: Record<string, string>): { ok: true; challenge: string } | { ok: false; error: HookError };
}

export interface HandshakeGate {
  /** The handshake of a hook name (slashes trimmed), if its mapping declares one. */
  forHook(name: string): MetaHandshake | undefined;
  /** Every verify token read (for the redaction rule). */
  readonly secrets: readonly string[];
}

const MAX_CHALLENGE_CHARS = 1000;

/** Reads every verify token; throws ConfigError naming the key of one that cannot be read. */
export function createHandshakeGate(list: readonly MetaHandshakeConfig[], ctx: { configDir: string; env?: NodeJS.ProcessEnv }): HandshakeGate {
  const byPath = new Map<string, MetaHandshake>();
  const secrets: string[] = [];
  for (const h of list) {
    const token = resolveSecret(h.verifyToken, ctx);
    if (!token.ok) throw new ConfigError(`${h.key} ${token.reason}`);
    secrets.push(token.value);
    const matches = createTokenMatcher(token.value);
    byPath.set(h.path, {
      mappingId: h.mappingId,
      answer(query) {
        const refuse = (reason: string) => ({ ok: false as const, error: hookErrors.handshakeRefused({ reason }) });
        if (query["hub.mode"] !== "subscribe") return refuse("hub.mode must be subscribe");
        const challenge = query["hub.challenge"];
        if (!challenge || challenge.length > MAX_CHALLENGE_CHARS) return refuse(`hub.challenge must be 1 to ${MAX_CHALLENGE_CHARS} characters`);
        if (!matches(query["hub.verify_token"] ?? "")) return refuse("hub.verify_token does not match");
        return { ok: true, challenge };
      },
    });
  }
  return { forHook: (name) => byPath.get(name.replace(/^\/+|\/+$/g, "")), secrets };
}
