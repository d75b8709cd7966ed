/**
 * Renders a mail push into the agent message of the `mail` preset (every message
 * listed, up to `maxMessages`, then a count of the rest) and derives its session
 * key (`hook:mail:<first message id>`, or a digest of the push).
 */
import { createHash } from "node:crypto";
import type { MailPush, MailPushMessage } from "./mail-push";
import { oneLine } from "./preset-text";

/** Longest message id used verbatim in a session key; longer ids are digested. */
const MAX_ID_IN_KEY = 200;

function renderOne(m: MailPushMessage, n: number): string {
  const lines = [`${n}. From: ${oneLine(m.from)}`, `   Subject: ${oneLine(m.subject) || "(no subject)"}`];
  if (m.date) lines.push(`   Date: ${oneLine(m.date)}`);
  if (m.snippet.trim()) lines.push(`   Snippet: ${oneLine(m.snippet)}`);
  if (m.body && m.body.trim()) {
    lines.push("   Body:");
    // Every line break a reader may honour ends a body line, so each is indented: none can start a forged entry.
    for (const line of m.body.trim().split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/)) lines.push(line.trim() ? `   ${line}` : "");
  }
  return lines.join("\n");
}

/** The agent message for a push: a heading, each listed message, and "… and N more" when capped. */
export function renderMailMessage(push: MailPush, maxMessages: number): string {
  const total = push.messages.length;
  const listed = push.messages.slice(0, Math.max(1, maxMessages));
  const parts = [`New mail: ${total} ${total === 1 ? "message" : "messages"}.`, ...listed.map((m, i) => renderOne(m, i + 1))];
  const rest = total - listed.length;
  if (rest > 0) parts.push(`… and ${rest} more ${rest === 1 ? "message" : "messages"} not listed (${total} in total).`);
  return parts.join("\n\n");
}

/**
 * What ends a mail message cut at `hooks.maxRenderedBytes`. It names the setting without its
 * section: the text reaches the model and the chat, where no key namer runs, and inside
 * OpenClaw `hooks.*` is OpenClaw's own section (the plugin's is `plugins.entries.inbound-webhooks.config`).
 */
export const CUT_MARKER = "\n\n… (cut: the rest of this push is over the maxRenderedBytes limit)";

/**
 * `message` within `maxBytes` of UTF-8: as it is, or cut on a character boundary and
 * ended with CUT_MARKER. The mail preset cuts rather than refusing (400
 * render_too_large): its sender, the mail watcher, skips a refused push, which would lose the mail.
 */
export function fitMailMessage(message: string, maxBytes: number): string {
  if (Buffer.byteLength(message, "utf8") <= maxBytes) return message;
  const budget = Math.max(0, maxBytes - Buffer.byteLength(CUT_MARKER, "utf8"));
  const { read } = new TextEncoder().encodeInto(message, new Uint8Array(budget));
  return `${message.slice(0, read)}${CUT_MARKER}`;
}

function shortDigest(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 32);
}

/** `hook:mail:<id of the first message>` (angle brackets and whitespace removed), else `hook:mail:<sha256 of the push>`. */
export function mailSessionKey(push: MailPush): string {
  const raw = push.messages[0]?.id ?? "";
  // eslint-disable-next-line no-control-regex
  const id = raw
    .trim()
    .replace(/^<(.*)>$/, "$1")
    .replace(/[\s\u0000-\u001f\u007f]+/g, "");
  if (id === "") return `hook:mail:${shortDigest(push.messages)}`;
  return `hook:mail:${id.length > MAX_ID_IN_KEY ? shortDigest(id) : id}`;
}
