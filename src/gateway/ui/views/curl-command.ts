/**
 * "Copy as curl" for one stored delivery: the request again, as a shell command
 * that names each secret's place instead of its value. The ledger stores every
 * credential, signature and cookie as `[REDACTED]` (host-contract/redaction.ts), so
 * the command carries `${HOOK_TOKEN}` for the hook token (an `Authorization` value or
 * a `token` query parameter) and `${<HEADER_NAME>}` for any other redacted header
 * (`${X_HUB_SIGNATURE_256}`: sign the body again with your secret). Nothing stored is
 * a secret's value, so nothing here can leak one.
 *
 * @example
 *   curlCommand(delivery, "http://127.0.0.1:18789")
 *   // curl -X POST 'http://127.0.0.1:18789/hooks/github?token='"${HOOK_TOKEN}" \
 *   //   -H 'authorization: Bearer '"${HOOK_TOKEN}" \
 *   //   -H 'content-type: application/json' \
 *   //   --data-binary '{"ref":"main"}'
 */
import type { DeliveryDetail } from "../../../host-contract/inspection";
import { REDACTED } from "../../../host-contract/redaction";

/**
 * Characters a terminal's line discipline or line editor acts on when they are pasted
 * (C0 but tab and line feed — Ctrl-C, Ctrl-U, ESC … —, DEL, C1). Quotes do not help: they
 * act before the shell parses anything, so a pasted Ctrl-U erases the line typed so far
 * and what follows runs as a command of its own. A body holding one is piped from its
 * base64 instead, which holds none and keeps every byte (a carriage return included).
 */
const PASTE_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Headers curl sets itself, or that describe the stored connection rather than the request. */
const LEFT_OUT = new Set(["host", "content-length", "connection", "transfer-encoding", "expect", "accept-encoding", "keep-alive"]);

function singleQuoted(s: string): string {
  return `'${s.split("'").join(`'\\''`)}'`;
}

/**
 * One shell word in which each `[REDACTED]` becomes the variable `${name}`: the rest in
 * single quotes (taken literally, `!` included: an interactive bash or zsh expands no
 * history, `$` or backquote there), the variable alone in double quotes, so it expands
 * to one word. `a[REDACTED]b` → `'a'"${NAME}"'b'`.
 */
function withVariable(s: string, name: string): string {
  return s
    .split(REDACTED)
    .map((literal) => (literal === "" ? "" : singleQuoted(literal)))
    .join(`"\${${name}}"`);
}

function word(s: string, variable: string): string {
  return s.includes(REDACTED) ? withVariable(s, variable) : singleQuoted(s);
}

/** `x-hub-signature-256` → `X_HUB_SIGNATURE_256`. */
export function variableName(header: string): string {
  return header.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "SECRET";
}

export function curlCommand(d: DeliveryDetail, origin: string): string {
  const parts = [`curl -X ${d.method} ${word(`${origin}${d.url}`, "HOOK_TOKEN")}`];
  for (const [name, value] of Object.entries(d.headers).sort(([a], [b]) => a.localeCompare(b))) {
    if (LEFT_OUT.has(name)) continue;
    const variable = name === "authorization" || name === "x-service-token" ? "HOOK_TOKEN" : variableName(name);
    // A wholly redacted Authorization was a Bearer token (the hooks' only scheme).
    const shown = name === "authorization" && value === REDACTED ? `Bearer ${REDACTED}` : value;
    parts.push(`-H ${word(`${name}: ${shown}`, variable)}`);
  }
  const base64 = d.body !== undefined && PASTE_UNSAFE.test(d.body) ? Buffer.from(d.body, "utf8").toString("base64") : d.bodyBase64;
  if (d.body !== undefined && base64 === undefined) parts.push(`--data-binary ${singleQuoted(d.body)}`);
  else if (base64 !== undefined) return `printf %s ${singleQuoted(base64)} | base64 -d | ${[...parts, "--data-binary @-"].join(" \\\n  ")}`;
  return parts.join(" \\\n  ");
}
