/**
 * Removal of characters that could forge lines or reorder text where a
 * hook-supplied label is shown (the run name prefixes `Hook <name>: …`).
 */

/** C0/C1 control characters (newlines, tabs, escapes) and bidirectional overrides/isolates. */
const UNSAFE = /[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** @example stripControlChars("CI\n\u001b[31mred") // "CI[31mred" */
export function stripControlChars(s: string): string {
  return s.replace(UNSAFE, "");
}

/** True when `s` contains a character `stripControlChars` would remove. */
export function hasControlChars(s: string): boolean {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(s);
  UNSAFE.lastIndex = 0;
  return found;
}
