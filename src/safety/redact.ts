/**
 * Redaction of log meta and log text (SPEC §9): secret-named keys are replaced,
 * token query parameters (whatever their case or percent-encoding) and Bearer
 * credentials are hidden in every string.
 */
import { redactQueryTokens } from "./query-token-redaction";

const SECRET_KEYS = /^(token|authorization|x-service-token|cookie|password|secret|apikey|api_key)$/i;

/**
 * Replaces the value of every token query parameter (whatever its case or
 * percent-encoding: `?token=`, `?%74oken=`, `?TOKEN=`) and every Bearer credential.
 */
export function redactString(s: string): string {
  return redactQueryTokens(s).replace(/(Bearer\s+)[^\s"']+/gi, "$1[REDACTED]");
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[…]";
  if (typeof value === "string") return redactString(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = SECRET_KEYS.test(k) ? "[REDACTED]" : redact(v, depth + 1);
    }
    return out;
  }
  return value;
}
