/**
 * Text helpers of the built-in presets' messages. Linear in the input; the
 * bounded forms cut at a number of characters (code points) and mark the cut.
 */

/**
 * Collapses runs of white space and control characters (every line break a reader may honour:
 * CR, VT, FF, NEL, U+2028, U+2029) to one space and trims; with `max`, cuts there and marks the cut with "…".
 */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  return cut(text.replace(/[\s\p{Cc}\p{Zl}\p{Zp}]+/gu, " ").trim(), max);
}

/** Keeps line breaks (CRLF folded, blank runs folded to one blank line), trims, and cuts at `max`. */
export function excerpt(text: string, max: number): string {
  return cut(
    text
      .replace(/\r\n?/g, "\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim(),
    max,
  );
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}
