/**
 * The payload the watcher posts to the `mail` preset:
 * `{ source: "mail", messages: [{ id?, from, subject, snippet, body?, date? }] }`.
 */

export interface MailMessagePayload {
  /** Message-ID without angle brackets (a synthetic `<uidvalidity>.<uid>@<host>` when the header is missing). */
  id: string;
  from: string;
  subject: string;
  /** One line of plain text, bounded by `min(maxBytes, SNIPPET_MAX_BYTES)` UTF-8 bytes. */
  snippet: string;
  /** Plain text (HTML converted), bounded by `maxBytes`; only when `includeBody`. */
  body?: string;
  /** ISO-8601 (the Date header, else the server's internal date). */
  date?: string;
}

export interface MailBatchPayload {
  source: "mail";
  messages: MailMessagePayload[];
}
