/**
 * Secrets given by reference: `{ "env": "NAME" }` (an environment variable) or
 * `{ "file": "path" }` (a file, relative to the config file's directory). Used by
 * `hooks.token`, `gateway.auth.token` and `hooks.mail.imap.password`.
 *
 * @example
 *   resolveSecret({ env: "HOOK_TOKEN" }, { configDir: "/etc/gw", env: process.env })
 *   // → { ok: true, value: "…", source: "environment variable HOOK_TOKEN" }
 */
import fs from "node:fs";
import path from "node:path";

export type SecretRef = { env: string } | { file: string };

export type SecretResolution =
  { ok: true; value: string; /** Where it came from, for messages (never the value). */ source: string } | { ok: false; reason: string };

export interface SecretContext {
  configDir: string;
  env?: NodeJS.ProcessEnv;
}

/** True for a `{ env }` or `{ file }` object (shape only; values are checked by the schema). */
export function isSecretRef(value: unknown): value is SecretRef {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.env === "string" || typeof v.file === "string";
}

/**
 * Resolves a secret given as plain text or by reference; the result is trimmed.
 * A reason never contains the secret, only where it was looked for.
 */
export function resolveSecret(value: string | SecretRef, ctx: SecretContext): SecretResolution {
  if (typeof value === "string") return { ok: true, value: value.trim(), source: "plain text" };
  if ("env" in value && typeof value.env === "string") {
    const raw = (ctx.env ?? process.env)[value.env];
    const trimmed = raw?.trim() ?? "";
    if (trimmed === "") return { ok: false, reason: `refers to environment variable ${value.env}, which is not set or empty` };
    return { ok: true, value: trimmed, source: `environment variable ${value.env}` };
  }
  const file = path.resolve(ctx.configDir, (value as { file: string }).file);
  let content: string;
  try {
    content = fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "unreadable";
    return { ok: false, reason: `refers to file ${file}, which cannot be read (${code})` };
  }
  const trimmed = content.trim();
  if (trimmed === "") return { ok: false, reason: `refers to file ${file}, which is empty` };
  return { ok: true, value: trimmed, source: `file ${file}` };
}
