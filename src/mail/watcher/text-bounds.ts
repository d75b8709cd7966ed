/**
 * Plain-text helpers for mail content: HTML → text (html-to-text), whitespace
 * normalisation, and truncation to a UTF-8 byte budget on a character boundary.
 */
import { convert } from "html-to-text";
import { stripHtml } from "./strip-html";

const ELLIPSIS = "…";
const ELLIPSIS_BYTES = Buffer.byteLength(ELLIPSIS);

/**
 * Readable text of an HTML body: no tags, no link targets, no images, no wrapping.
 * HTML nested too deep for html-to-text (it recurses per level; a few thousand
 * unclosed tags overflow the stack) is read by stripHtml's one linear pass instead.
 */
export function htmlToPlainText(html: string): string {
  try {
    return convertHtml(html);
  } catch (e) {
    if (e instanceof RangeError) return stripHtml(html);
    throw e;
  }
}

function convertHtml(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: "a", options: { ignoreHref: true } },
      { selector: "img", format: "skip" },
      { selector: "style", format: "skip" },
      { selector: "script", format: "skip" },
    ],
  });
}

/**
 * `text` without the trailing characters that are in `chars`. A loop from the end,
 * not a `[…]+$` regex: V8 retries such a regex at every position of a run that is
 * not at the end, so one 1 MiB line of spaces followed by a letter took hours.
 */
export function trimEndOf(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text.charAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** Keeps line structure but trims trailing spaces and collapses runs of blank lines (linear in the text). */
export function tidyText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => trimEndOf(l, " \t\u00a0"))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** One line: every run of whitespace becomes a single space. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}

/**
 * Cuts `text` so its UTF-8 encoding fits `maxBytes`, never splitting a character;
 * a cut text ends with "…" (counted in the budget).
 *
 * @example truncateUtf8("héllo wörld", 8) // "héll…" (5 bytes of text + 3 for "…")
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  if (maxBytes < ELLIPSIS_BYTES) return "";
  const budget = maxBytes - ELLIPSIS_BYTES;
  let used = 0;
  let out = "";
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (used + n > budget) break;
    used += n;
    out += ch;
  }
  return out + ELLIPSIS;
}
