/**
 * Terminal safety (SPEC §9): text a sender chose — a hook name, a header, a body —
 * must not reach an operator's terminal as control characters (OSC 52 clipboard
 * writes, OSC 8 links, window titles, screen clears, cursor moves). Every C0 control
 * (U+0000–U+001F), DEL (U+007F), every C1 control (U+0080–U+009F) and the bidirectional
 * overrides (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, which reorder what a line
 * appears to say) become visible escapes: `\x1b`, `\x9b`, `\u202e`.
 * Used by the plugin's CLI output helper (src/cli/output.ts) and the gateway CLI's
 * lines and `--json`; one pass over the text with a character class (linear in its size).
 *
 * @example terminalSafe("a\u001b]0;t\u0007b\n") // "a\\x1b]0;t\\x07b\n"
 */

const CONTROLS_KEEPING_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escapeOne(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** For a block of lines: escapes every control character except line feed and tab. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROLS_KEEPING_LINES, escapeOne);
}

/** For one line or one table cell: escapes line feeds and tabs too. */
export function terminalSafeLine(text: string): string {
  return text.replace(CONTROLS, escapeOne);
}

/** Characters JSON.stringify leaves raw that a terminal may act on: DEL, C1 controls and bidi overrides. */
const JSON_RAW_CONTROLS = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `--json` output: `JSON.stringify(value, null, 2)` with the characters JSON leaves raw that a
 * terminal may act on written as `\u` escapes (the same JSON value: they parse to the same string).
 */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(JSON_RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
