/**
 * "Copy as curl" for one stored delivery: the request again, as a command an operator
 * pastes into an interactive bash or zsh. The ledger stores every credential, signature
 * and cookie as `[REDACTED]` (host-contract/redaction.ts), and everything else as the
 * sender chose it, so the command is built to hold nothing a sender can make the
 * operator's shell or terminal act on:
 *
 * - **One variable, at fixed places.** The hook token is `"${HOOK_TOKEN:?…}"` (the page
 *   says to export it) where the hooks read it — an `Authorization` header kept as
 *   `[REDACTED]` (sent as `Bearer …`), an `x-service-token` kept as `[REDACTED]`, a
 *   `token=[REDACTED]` query parameter — and nowhere else; unset, the shell refuses the
 *   command instead of sending it without. No other name appears: every other
 *   `[REDACTED]` (a signature, a cookie, a header a sender named and filled with that
 *   text) is sent as the literal text `[REDACTED]`.
 * - **Printable ASCII and line feeds only.** A word of printable ASCII is single-quoted
 *   (taken literally: `!`, `$`, backquotes). Any other word is an ANSI-C `$'…'` word with
 *   every other byte escaped (`\t`, `\n`, `\r`, `\xHH`; `'` as `\x27`, `\` as `\\`), so no
 *   TAB (a completion), control byte (Ctrl-U, ESC …: the line editor acts on them whatever
 *   the quotes) or byte ≥ 0x80 (a Meta key in a non-UTF-8 locale) is ever pasted, and no
 *   quoted word spans lines (history expansion in bash before 5.1 reads a continuation
 *   line on its own). The line feeds are the command's own ` \` continuations.
 * - **Bytes as stored.** Header values and the URL are byte strings (node reads them as
 *   latin1); a body is its bytes. A body holding a NUL (an argument cannot) or of more
 *   than 64 KiB (one argument is at most 128 KiB on Linux) is piped from its base64
 *   (`printf %s '…' | base64 -d | curl … --data-binary @-`: printf is the shell's own).
 *
 * @example
 *   curlCommand(delivery, "http://127.0.0.1:18789")
 *   // curl -X POST 'http://127.0.0.1:18789/hooks/github' \
 *   //   -H 'authorization: Bearer '"${HOOK_TOKEN:?export HOOK_TOKEN first}" \
 *   //   -H 'content-type: application/json' \
 *   //   -H 'x-hub-signature-256: [REDACTED]' \
 *   //   --data-binary $'{"note":"caf\xc3\xa9\tok"}'
 */
import type { DeliveryDetail } from "../../core/inspection";
import { REDACTED } from "../../host-contract/redaction";

/** The one shell variable the command reads: the hook token, which the operator exports. */
export const HOOK_TOKEN_VARIABLE = "HOOK_TOKEN";
/** Its expansion: one word; unset or empty, bash and zsh print the sentence and run nothing. */
const HOOK_TOKEN_EXPANSION = `"\${${HOOK_TOKEN_VARIABLE}:?export ${HOOK_TOKEN_VARIABLE} first}"`;
/** A body above this many bytes is piped (one argument of execve is at most 128 KiB on Linux). */
const MAX_BODY_ARGUMENT_BYTES = 64 * 1024;

/** Headers curl sets itself, or that describe the stored connection rather than the request. */
const LEFT_OUT = new Set(["host", "content-length", "connection", "transfer-encoding", "expect", "accept-encoding", "keep-alive"]);

/** The hook token's place in a shell word (the rest of the word is bytes taken literally). */
const TOKEN = Symbol("hook token");
type Piece = Buffer | typeof TOKEN;

/** A stored header value or URL: a byte string (node reads both as latin1); anything wider as UTF-8. */
function bytesOf(s: string): Buffer {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) return Buffer.from(s, "utf8");
  return Buffer.from(s, "latin1");
}

const printable = (b: Buffer): boolean => b.every((c) => c >= 0x20 && c <= 0x7e);

const ESCAPES: Record<number, string> = { 0x09: "\\t", 0x0a: "\\n", 0x0d: "\\r", 0x27: "\\x27", 0x5c: "\\\\" };

/** `$'…'` with every byte that is not printable ASCII (and `'`, `\`) escaped. */
function ansiC(b: Buffer): string {
  let out = "$'";
  for (const c of b) out += ESCAPES[c] ?? (c >= 0x20 && c <= 0x7e ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, "0")}`);
  return `${out}'`;
}

/** Bytes taken literally by the shell, in a form that pastes as printable ASCII only. */
export function quoted(b: Buffer): string {
  return printable(b) ? `'${b.toString("latin1").split("'").join(`'\\''`)}'` : ansiC(b);
}

/** One shell word: the literal pieces quoted, the hook token's place its expansion. */
function shellWord(pieces: Piece[]): string {
  const merged: Piece[] = [];
  for (const p of pieces) {
    const last = merged[merged.length - 1];
    if (p !== TOKEN && last !== undefined && last !== TOKEN) merged[merged.length - 1] = Buffer.concat([last, p]);
    else if (p === TOKEN || p.length > 0) merged.push(p);
  }
  return merged.length === 0 ? "''" : merged.map((p) => (p === TOKEN ? HOOK_TOKEN_EXPANSION : quoted(p))).join("");
}

/** The path and query of a request target (an absolute-form one loses its scheme and authority). */
function originForm(url: string): string {
  if (url.startsWith("/")) return url;
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(url);
  const rest = authority ? url.slice(authority[0].length) : url;
  return rest.startsWith("/") ? rest : `/${rest}`;
}

/** True for `token=[REDACTED]`, the name spelled as URLSearchParams reads it (the hooks read `token` so: `%74oken` too). */
function isTokenParam(param: string): boolean {
  const eq = param.indexOf("=");
  if (eq === -1 || param.slice(eq + 1) !== REDACTED) return false;
  try {
    return decodeURIComponent(param.slice(0, eq).split("+").join(" ")) === "token";
  } catch {
    return false;
  }
}

/** The URL word: a `token=[REDACTED]` query parameter (the hook token's carrier) becomes the expansion. */
function urlWord(origin: string, url: string): string {
  const target = originForm(url);
  const q = target.indexOf("?");
  if (q === -1) return shellWord([bytesOf(origin + target)]);
  const pieces: Piece[] = [bytesOf(`${origin}${target.slice(0, q + 1)}`)];
  target
    .slice(q + 1)
    .split("&")
    .forEach((param, i) => {
      if (i > 0) pieces.push(bytesOf("&"));
      if (isTokenParam(param)) pieces.push(bytesOf(param.slice(0, param.indexOf("=") + 1)), TOKEN);
      else pieces.push(bytesOf(param));
    });
  return shellWord(pieces);
}

/** The `-H` word of one header: the hook token's carriers, kept as `[REDACTED]`, carry the expansion. */
function headerWord(name: string, value: string): string {
  if (value === REDACTED && name === "x-service-token") return shellWord([bytesOf(`${name}: `), TOKEN]);
  if (name === "authorization" && (value === REDACTED || value === `Bearer ${REDACTED}`)) return shellWord([bytesOf(`${name}: Bearer `), TOKEN]);
  return shellWord([bytesOf(`${name}: ${value}`)]);
}

function bodyBytes(d: DeliveryDetail): Buffer | undefined {
  if (d.body !== undefined) return Buffer.from(d.body, "utf8");
  return d.bodyBase64 === undefined ? undefined : Buffer.from(d.bodyBase64, "base64");
}

export function curlCommand(d: DeliveryDetail, origin: string): string {
  const method = /^[A-Za-z]+$/.test(d.method) ? d.method : quoted(bytesOf(d.method));
  const parts = [`curl -X ${method} ${urlWord(origin, d.url)}`];
  for (const [name, value] of Object.entries(d.headers).sort(([a], [b]) => a.localeCompare(b))) {
    if (!LEFT_OUT.has(name)) parts.push(`-H ${headerWord(name, value)}`);
  }
  const body = bodyBytes(d);
  if (body === undefined) return parts.join(" \\\n  ");
  if (!body.includes(0) && body.length <= MAX_BODY_ARGUMENT_BYTES) return [...parts, `--data-binary ${quoted(body)}`].join(" \\\n  ");
  return `printf %s ${quoted(Buffer.from(body.toString("base64")))} | base64 -d | ${[...parts, "--data-binary @-"].join(" \\\n  ")}`;
}
