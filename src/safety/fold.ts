/**
 * Folding for marker detection: a per-code-point canonical form of a text that
 * keeps a map back to the original, so a look-alike found in the folded text
 * can be cut out of the original.
 *
 * Each code point is folded on its own: invisible characters (format `Cf`,
 * combining marks, non-whitespace controls, fillers) disappear; everything else
 * goes through NFKC (full-width, mathematical and circled forms become ASCII),
 * upper case, and a small table of Cyrillic/Greek capitals that look like Latin
 * ones. Folding is deliberately aggressive: it only decides what to neutralise,
 * it never changes text that contains no look-alike.
 */

/** Dropped entirely: format chars (zero-width, bidi, soft hyphen, tags), marks, controls that are not whitespace, fillers. */
const INVISIBLE = /^(?:[\p{Cf}\p{Mn}\p{Me}\u115F\u1160\u3164\uFFA0\u2800]|(?![\t\n\v\f\r])\p{Cc})$/u;

/** Cyrillic and Greek capitals that render like the Latin capital letters used by the markers. */
const CONFUSABLES: Record<string, string> = {
  "\u0410": "A", "\u0412": "B", "\u0415": "E", "\u0405": "S", "\u0406": "I", "\u0408": "J", "\u041A": "K",
  "\u041C": "M", "\u041D": "H", "\u041E": "O", "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0423": "Y",
  "\u0425": "X", "\u0500": "D", "\u051A": "Q", "\u051C": "W", "\u04C0": "I",
  "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039A": "K",
  "\u039C": "M", "\u039D": "N", "\u039F": "O", "\u03A1": "P", "\u03A4": "T", "\u03A5": "Y", "\u03A7": "X",
};

export interface FoldedText {
  /** The folded text. */
  text: string;
  /** For each UTF-16 unit of `text`: start offset of the original code point it came from. */
  starts: number[];
  /** For each UTF-16 unit of `text`: end offset (exclusive) of that original code point. */
  ends: number[];
}

/** Folds one code point (see module doc). */
export function foldCodePoint(ch: string): string {
  if (INVISIBLE.test(ch)) return "";
  let out = "";
  for (const c of ch.normalize("NFKC").toUpperCase()) {
    if (INVISIBLE.test(c)) continue;
    out += CONFUSABLES[c] ?? c;
  }
  return out;
}

/** Folds a whole text, keeping the map from folded units back to original offsets. */
export function foldForDetection(input: string): FoldedText {
  let text = "";
  const starts: number[] = [];
  const ends: number[] = [];
  let offset = 0;
  for (const ch of input) {
    const folded = foldCodePoint(ch);
    const end = offset + ch.length;
    for (let i = 0; i < folded.length; i++) {
      starts.push(offset);
      ends.push(end);
    }
    text += folded;
    offset = end;
  }
  return { text, starts, ends };
}
