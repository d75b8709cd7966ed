/**
 * Turns one raw RFC 5322 message into the preset's message object with mailparser:
 * decoded headers (RFC 2047 subjects), plain text preferred over HTML, HTML-only
 * bodies converted to text, everything bounded by `maxBytes`.
 */
import { simpleParser, type AddressObject, type EmailAddress } from "mailparser";
import type { MailMessagePayload } from "./mail-payload";
import { collapseWhitespace, htmlToPlainText, tidyText, trimEndOf, truncateUtf8 } from "./text-bounds";

/** A snippet never exceeds this many bytes, even when `maxBytes` is larger. */
export const SNIPPET_MAX_BYTES = 500;
/** Header values (from, subject) are bounded too, so one odd message cannot bloat a batch. */
const HEADER_MAX_BYTES = 1000;

export interface ParseMessageOptions {
  maxBytes: number;
  includeBody: boolean;
  /** Used for a synthetic id when the message has no Message-ID. */
  fallbackId: string;
  /** Server internal date, used when the Date header is missing or invalid. */
  internalDate?: Date;
}

/** Parses a raw message (Buffer) into a bounded, plain-text payload entry. */
export async function parseMessage(source: Buffer, opts: ParseMessageOptions): Promise<MailMessagePayload> {
  const parsed = await simpleParser(source, {
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    skipImageLinks: true,
  });

  const plain = typeof parsed.text === "string" ? parsed.text : "";
  const html = typeof parsed.html === "string" ? parsed.html : "";
  const text = tidyText(plain.trim() !== "" ? plain : html !== "" ? htmlToPlainText(html) : "");

  const message: MailMessagePayload = {
    id: normaliseMessageId(parsed.messageId) ?? opts.fallbackId,
    from: truncateUtf8(collapseWhitespace(formatAddresses(parsed.from)), HEADER_MAX_BYTES) || "(unknown sender)",
    subject: truncateUtf8(collapseWhitespace(parsed.subject ?? ""), HEADER_MAX_BYTES) || "(no subject)",
    snippet: truncateUtf8(collapseWhitespace(text), Math.min(opts.maxBytes, SNIPPET_MAX_BYTES)),
  };
  if (opts.includeBody) message.body = truncateUtf8(text, opts.maxBytes);
  const date = validDate(parsed.date) ?? validDate(opts.internalDate);
  if (date) message.date = date.toISOString();
  return message;
}

/** `Name <addr>` (no quotes), comma-separated; group members flattened. */
function formatAddresses(from: AddressObject | undefined): string {
  const flat = (list: EmailAddress[]): EmailAddress[] => list.flatMap((a) => (a.group ? flat(a.group) : [a]));
  return flat(from?.value ?? [])
    .map((a) => (a.name && a.address ? `${a.name} <${a.address}>` : a.address || a.name))
    .filter((s) => s !== "")
    .join(", ");
}

function normaliseMessageId(id: string | undefined): string | undefined {
  if (!id) return undefined;
  const bare = trimEndOf(id.trim().replace(/^<+/, ""), ">").trim();
  return bare === "" ? undefined : truncateUtf8(bare, 500);
}

function validDate(d: Date | undefined): Date | undefined {
  return d instanceof Date && !Number.isNaN(d.getTime()) ? d : undefined;
}
