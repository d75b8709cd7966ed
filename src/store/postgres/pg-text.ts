/**
 * Postgres text cannot hold U+0000 (it refuses the whole statement), while a sender can
 * put one into any string it controls (an event name, an idempotency key rendered from
 * its payload). Plain text columns get `pgText()`: U+0000 is stored as U+FFFD, the rest
 * as it was. Everything the queue runs from is stored as JSON, which escapes it, and
 * bodies as bytes: those keep it exactly.
 *
 * @example pgText("a\u0000b") // "a\uFFFDb"
 */
export function pgText(s: string): string;
export function pgText(s: string | undefined | null): string | null;
export function pgText(s: string | undefined | null): string | null {
  if (s === undefined || s === null) return null;
  return s.includes("\u0000") ? s.replace(/\u0000/g, "\uFFFD") : s;
}
