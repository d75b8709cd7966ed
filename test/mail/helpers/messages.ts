/**
 * Raw RFC 5322 messages for the mail tests, written out by hand so each test knows
 * exactly which MIME structure and encoding it feeds the watcher.
 */
import { randomBytes } from "node:crypto";

export interface BuiltMessage {
  /** Message-ID without angle brackets. */
  id: string;
  raw: string;
}

function messageId(tag: string): string {
  return `${tag}.${randomBytes(6).toString("hex")}@test.example`;
}

function headers(id: string, subject: string, extra: string[] = []): string {
  return [
    `From: Alice Example <alice@example.com>`,
    `To: tester@example.com`,
    `Subject: ${subject}`,
    `Date: Tue, 04 Jun 2024 10:15:00 +0000`,
    `Message-ID: <${id}>`,
    `MIME-Version: 1.0`,
    ...extra,
  ].join("\r\n");
}

/** RFC 2047 B-encoding of a UTF-8 header value. */
export function encodeWord(text: string): string {
  return `=?UTF-8?B?${Buffer.from(text, "utf8").toString("base64")}?=`;
}

/** text/plain, 7bit. */
export function plainMessage(subject: string, body: string): BuiltMessage {
  const id = messageId("plain");
  return { id, raw: `${headers(id, subject, ["Content-Type: text/plain; charset=us-ascii", "Content-Transfer-Encoding: 7bit"])}\r\n\r\n${body}\r\n` };
}

/** Quoted-printable encoding of UTF-8 text with soft line breaks at 76 characters. */
export function quotedPrintable(text: string): string {
  const tokens = [...Buffer.from(text, "utf8")].map((b) =>
    (b >= 0x21 && b <= 0x7e && b !== 0x3d) || b === 0x20 ? String.fromCharCode(b) : "=" + b.toString(16).toUpperCase().padStart(2, "0"),
  );
  const lines: string[] = [];
  let line = "";
  for (const t of tokens) {
    if (line.length + t.length > 75) {
      lines.push(line + "=");
      line = "";
    }
    line += t;
  }
  lines.push(line);
  return lines.join("\r\n");
}

/** text/html only, quoted-printable UTF-8. */
export function htmlOnlyMessage(subject: string, html: string): BuiltMessage {
  const id = messageId("html");
  return {
    id,
    raw: `${headers(id, subject, ["Content-Type: text/html; charset=utf-8", "Content-Transfer-Encoding: quoted-printable"])}\r\n\r\n${quotedPrintable(html)}\r\n`,
  };
}

/** multipart/alternative with a text and an HTML part. */
export function alternativeMessage(subject: string, text: string, html: string): BuiltMessage {
  const id = messageId("alt");
  const boundary = `b_${randomBytes(8).toString("hex")}`;
  const b64 = (s: string): string =>
    (
      Buffer.from(s, "utf8")
        .toString("base64")
        .match(/.{1,76}/g) ?? []
    ).join("\r\n");
  const raw =
    `${headers(id, subject, [`Content-Type: multipart/alternative; boundary="${boundary}"`])}\r\n\r\n` +
    `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64(text)}\r\n` +
    `--${boundary}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64(html)}\r\n` +
    `--${boundary}--\r\n`;
  return { id, raw };
}

/** Non-ASCII subject as an RFC 2047 encoded word, UTF-8 body. */
export function nonAsciiSubjectMessage(subject: string, body: string): BuiltMessage {
  const id = messageId("utf8");
  const b64body = (
    Buffer.from(body, "utf8")
      .toString("base64")
      .match(/.{1,76}/g) ?? []
  ).join("\r\n");
  return {
    id,
    raw: `${headers(id, encodeWord(subject), ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64"])}\r\n\r\n${b64body}\r\n`,
  };
}

/** A plain message whose body is `lines` numbered lines of about 70 bytes. */
export function largeMessage(subject: string, lines: number): BuiltMessage {
  const id = messageId("large");
  const body = Array.from({ length: lines }, (_, i) => `line ${String(i + 1).padStart(6, "0")} ${"lorem ipsum dolor sit amet ".repeat(2)}`).join("\r\n");
  return { id, raw: `${headers(id, subject, ["Content-Type: text/plain; charset=us-ascii"])}\r\n\r\n${body}\r\n` };
}

/** A message without a Message-ID header. */
export function messageWithoutId(subject: string, body: string): string {
  return [
    `From: bob@example.com`,
    `To: tester@example.com`,
    `Subject: ${subject}`,
    `Date: Tue, 04 Jun 2024 11:00:00 +0000`,
    `Content-Type: text/plain; charset=us-ascii`,
    ``,
    body,
    ``,
  ].join("\r\n");
}
