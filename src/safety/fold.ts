/**
 * Folding for marker detection: the letters a reader sees in a text, as an
 * upper-case, mostly-ASCII skeleton, with a map back to the original offsets so
 * a look-alike found in the folded text can be cut out of the original.
 *
 * Each code point is folded on its own, and the result is cached per code point:
 *  1. ASCII: upper case (controls other than white space disappear);
 *  2. invisible characters disappear: format characters (`Cf`: zero-width,
 *     bidi, soft hyphen, tags), combining marks, controls, Hangul fillers;
 *  3. compatibility forms through NFKC (full-width, mathematical, circled);
 *  4. accented letters lose their marks (canonical decomposition);
 *  5. upper case (`е` → `Е`, `ι` → `Ι`);
 *  6. Latin letters whose Unicode name makes them an ASCII letter — small
 *     capitals `ᴇ`, letters with a stroke, bar or hook `Ƚ`, `Ƭ` (generated from
 *     UnicodeData.txt, see src/generated/latin-base-letters.ts);
 *     — and the enclosed-letter symbols without a decomposition (negative
 *     circled `🅔`, negative squared `🅴`, regional indicators `🇪`);
 *  7. Unicode's confusables data (UTS #39 `confusables.txt`, from the
 *     `unhomoglyph` package): Cyrillic and Greek capitals, Cherokee `Ꭼ`, Lisu `ꓰ`,
 *     Canadian syllabics `ᐸ`, …, each mapped to its prototype — or, when the
 *     data has none for the character, the prototype of its lower case
 *     (`Ԁ` → `ԁ` → `d`).
 * Steps 3–7 start over on their result until nothing changes. Folding is
 * deliberately aggressive: it only decides what to neutralise, it never changes
 * text that contains no look-alike.
 */
import unicodeConfusables from "unhomoglyph/data.json";
import { LATIN_BASE_LETTERS } from "../generated/latin-base-letters";

/** Source character → prototype, from Unicode's confusables.txt (version in the `unhomoglyph` package). */
const CONFUSABLES = new Map<string, string>(Object.entries(unicodeConfusables as Readonly<Record<string, string>>));

/** Code point → the ASCII capital its Unicode name gives it. */
const LATIN_BASE = new Map<number, string>();
for (const [letter, chars] of Object.entries(LATIN_BASE_LETTERS)) {
  for (const ch of chars) LATIN_BASE.set(ch.codePointAt(0)!, letter);
}

/** Dropped entirely: format chars (zero-width, bidi, soft hyphen, tags), marks, controls that are not whitespace, fillers. */
const INVISIBLE = /^(?:[\p{Cf}\p{Mn}\p{Me}\u115F\u1160\u3164\uFFA0\u2800]|(?![\t\n\v\f\r])\p{Cc})$/u;
const MARKS = /\p{M}/gu;
/** Bound on re-folding a fold's result (guards against a cycle in the data; none is known). */
const MAX_DEPTH = 6;

/** Fold of each ASCII code: its upper case, or -1 when it disappears (controls other than \t \n \v \f \r). */
const ASCII_FOLD = new Int32Array(128);
for (let c = 0; c < 128; c++) {
  const control = c < 0x20 || c === 0x7f;
  ASCII_FOLD[c] = control && !(c >= 9 && c <= 13) ? -1 : String.fromCharCode(c).toUpperCase().charCodeAt(0);
}

/** Code points known to fold to themselves (one bit each, 136 KiB for all of Unicode). */
const IDENTITY = new Uint8Array(0x110000 >> 3);
/** Every other code point folded so far. Bounded by the data: only code points that change end up here. */
const FOLDED = new Map<number, string>();

function foldString(s: string, depth: number): string {
  let out = "";
  for (const ch of s) out += foldChar(ch, depth);
  return out;
}

function foldChar(ch: string, depth: number): string {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x80) {
    const f = ASCII_FOLD[cp]!;
    return f < 0 ? "" : String.fromCharCode(f);
  }
  if (depth > 0) {
    const known = FOLDED.get(cp);
    if (known !== undefined) return known;
    if ((IDENTITY[cp >> 3]! & (1 << (cp & 7))) !== 0) return ch;
  }
  if (INVISIBLE.test(ch)) return "";
  if (depth >= MAX_DEPTH) return ch;
  // NFKD unchanged means no decomposition at all (the common case): NFKC and NFD are then unchanged too.
  if (ch.normalize("NFKD") !== ch) {
    const nfkc = ch.normalize("NFKC");
    if (nfkc !== ch) return foldString(nfkc, depth + 1);
    const nfd = ch.normalize("NFD");
    const base = nfd.replace(MARKS, "");
    if (base !== nfd && base !== "") return foldString(base, depth + 1);
  }
  const upper = ch.toUpperCase();
  if (upper !== ch) return foldString(upper, depth + 1);
  const latin = LATIN_BASE.get(cp);
  if (latin !== undefined) return latin;
  const enclosed = enclosedLetter(cp);
  if (enclosed !== undefined) return enclosed;
  const prototype = confusable(ch) ?? confusable(ch.toLowerCase());
  if (prototype !== undefined) return foldString(prototype, depth + 1);
  return ch;
}

/**
 * Symbols named `… LATIN CAPITAL LETTER X` / `… SYMBOL LETTER X` without a decomposition (so NFKC
 * leaves them alone): negative circled `🅔`, negative squared `🅴`, regional indicators `🇪`.
 */
const ENCLOSED_LETTER_BLOCKS = [0x1f150, 0x1f170, 0x1f1e6];

function enclosedLetter(cp: number): string | undefined {
  for (const first of ENCLOSED_LETTER_BLOCKS) {
    if (cp >= first && cp < first + 26) return String.fromCharCode(65 + cp - first);
  }
  return undefined;
}

/** The confusables prototype of a character, when the data has one other than itself. */
function confusable(ch: string): string | undefined {
  const prototype = CONFUSABLES.get(ch);
  return prototype === ch ? undefined : prototype;
}

/** Fold of a non-ASCII code point, or null when it folds to itself. Cached. */
function foldNonAscii(cp: number): string | null {
  if ((IDENTITY[cp >> 3]! & (1 << (cp & 7))) !== 0) return null;
  const known = FOLDED.get(cp);
  if (known !== undefined) return known;
  const ch = String.fromCodePoint(cp);
  const folded = foldChar(ch, 0);
  if (folded === ch) {
    IDENTITY[cp >> 3]! |= 1 << (cp & 7);
    return null;
  }
  FOLDED.set(cp, folded);
  return folded;
}

/**
 * Folds one code point (see module doc).
 *
 * @example foldCodePoint("ᴇ") // "E"
 * @example foldCodePoint("\u200B") // ""
 */
export function foldCodePoint(ch: string): string {
  const cp = ch.codePointAt(0);
  if (cp === undefined) return "";
  if (cp < 0x80) return foldChar(ch, 0);
  return foldNonAscii(cp) ?? String.fromCodePoint(cp);
}

export interface FoldedText {
  /** The folded text. */
  text: string;
  /**
   * For each UTF-16 unit of `text`: the offset in the input of the code point it
   * came from. `null` when `text` maps one to one onto the input (the ASCII fast path).
   */
  starts: Int32Array | null;
}

/** True when every code unit is printable ASCII or \t \n \v \f \r: the fold is then just the upper case. */
function isPlainAscii(input: string): boolean {
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c >= 0x7f || (c < 0x20 && (c < 9 || c > 13))) return false;
  }
  return true;
}

/** Turns folded UTF-16 units into a string (a lone surrogate becomes U+FFFD: same length, never part of a marker). */
export const UTF16 = new TextDecoder("utf-16le");

/**
 * Folds a whole text in one pass, keeping the map from folded units back to
 * original offsets. Linear in the input: every code point costs one cache lookup
 * (one fold computation the first time the process meets it).
 */
export function foldForDetection(input: string): FoldedText {
  if (isPlainAscii(input)) return { text: input.toUpperCase(), starts: null };
  // Room for a one-to-one fold plus one expansion: growing is rare (and its branch stays cold).
  let units = new Uint16Array(input.length + 64);
  let starts = new Int32Array(input.length + 64);
  let length = 0;
  // Runs of one character are the common adversarial case: remember the last fold.
  let lastCp = -1;
  let lastFold: string | null = null;
  for (let i = 0; i < input.length;) {
    // A code point folds to at most 18 units (NFKC's longest expansion); keep that much room.
    if (length + 32 > units.length) {
      const grownUnits = new Uint16Array(units.length * 2);
      grownUnits.set(units);
      units = grownUnits;
      const grownStarts = new Int32Array(starts.length * 2);
      grownStarts.set(starts);
      starts = grownStarts;
    }
    const c = input.charCodeAt(i);
    if (c < 0x80) {
      const f = ASCII_FOLD[c]!;
      if (f >= 0) {
        units[length] = f;
        starts[length++] = i;
      }
      i++;
      continue;
    }
    let cp = c;
    let width = 1;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = input.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        width = 2;
      }
    }
    if (cp !== lastCp) {
      lastCp = cp;
      lastFold = foldNonAscii(cp);
    }
    if (lastFold === null) {
      units[length] = c;
      starts[length++] = i;
      if (width === 2) {
        units[length] = input.charCodeAt(i + 1);
        starts[length++] = i;
      }
    } else {
      for (let k = 0; k < lastFold.length; k++) {
        units[length] = lastFold.charCodeAt(k);
        starts[length++] = i;
      }
    }
    i += width;
  }
  return { text: UTF16.decode(units.subarray(0, length)), starts: starts.subarray(0, length) };
}
