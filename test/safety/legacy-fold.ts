/**
 * The marker-detection fold as it was before the linear rewrite (commit
 * 68a46b5, src/safety/fold.ts), kept as an oracle: every code point it folded
 * onto a marker character must still be caught (test/safety/homoglyphs.test.ts).
 * Per code point: invisibles dropped, NFKC, upper case, and a hand table of
 * Cyrillic/Greek capitals.
 */
const INVISIBLE = /^(?:[\p{Cf}\p{Mn}\p{Me}\u115F\u1160\u3164\uFFA0\u2800]|(?![\t\n\v\f\r])\p{Cc})$/u;

const TABLE: Record<string, string> = {
  "\u0410": "A",
  "\u0412": "B",
  "\u0415": "E",
  "\u0405": "S",
  "\u0406": "I",
  "\u0408": "J",
  "\u041A": "K",
  "\u041C": "M",
  "\u041D": "H",
  "\u041E": "O",
  "\u0420": "P",
  "\u0421": "C",
  "\u0422": "T",
  "\u0423": "Y",
  "\u0425": "X",
  "\u0500": "D",
  "\u051A": "Q",
  "\u051C": "W",
  "\u04C0": "I",
  "\u0391": "A",
  "\u0392": "B",
  "\u0395": "E",
  "\u0396": "Z",
  "\u0397": "H",
  "\u0399": "I",
  "\u039A": "K",
  "\u039C": "M",
  "\u039D": "N",
  "\u039F": "O",
  "\u03A1": "P",
  "\u03A4": "T",
  "\u03A5": "Y",
  "\u03A7": "X",
};

export function legacyFoldCodePoint(ch: string): string {
  if (INVISIBLE.test(ch)) return "";
  let out = "";
  for (const c of ch.normalize("NFKC").toUpperCase()) {
    if (INVISIBLE.test(c)) continue;
    out += TABLE[c] ?? c;
  }
  return out;
}
