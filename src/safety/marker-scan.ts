/**
 * Finds marker look-alikes in folded text (see fold.ts) in one left-to-right
 * pass, without regular expressions: every occurrence of the anchor words
 * `EXTERNAL` and `UNTRUSTED` — separators between their letters allowed — is found with `indexOf`
 * in a copy of the text without separators, then extended to the left (separators,
 * `END`, separators, opening brackets) and to the right (separators,
 * `UNTRUSTED`, `CONTENT`, an `id=` attribute, closing brackets) by simple
 * loops over character classes. Extensions stop at the previous look-alike and
 * never cross another `EXTERNAL`, so each character is visited a bounded number
 * of times: linear in the text, whatever it contains.
 *
 * The marker words may have separators between their letters too (`EXT ERNAL`,
 * `UN-TRUSTED`, `CON\nTENT`): a reader skips them as it skips those between
 * the words.
 *
 * What counts as a look-alike (in folded text):
 *  1. the marker words `EXTERNAL UNTRUSTED [CONTENT]` with any separators,
 *     optionally preceded by `END` and by opening brackets, and followed by an
 *     id attribute and closing brackets;
 *  2. a partial marker: two or more opening brackets (separators allowed between them) followed by
 *     `[END_]EXTERNAL` or `[END_]UNTRUSTED`, optionally `_WORD` or `-WORD` parts, an id attribute and
 *     closing brackets;
 *  3. a marker missing one word, `EXTERNAL CONTENT` or `UNTRUSTED CONTENT`, when it is framed like
 *     one: after an opening bracket or the word `END`, or followed by an id attribute or closing
 *     brackets (`<<<END_UNTRUSTED_CONTENT>>>`, `</untrusted_content>`). Unframed prose
 *     ("untrusted content") is kept.
 */
import { foldCodePoint, UTF16 } from "./fold";

const ANCHOR = "EXTERNAL";
/** The words a look-alike is found by: `EXTERNAL`, and `UNTRUSTED` for markers that leave `EXTERNAL` out. */
const ANCHORS = [ANCHOR, "UNTRUSTED"];
const SPACE = 1;
const SEP = 2;
const OPEN = 4;
const CLOSE = 8;

/** Class bits of each BMP code unit (every class member is in the BMP). */
const CLASS = new Uint8Array(0x10000);

function addClass(bit: number, chars: string): void {
  for (const ch of chars) {
    // A raw member and what it folds to: detection runs on folded text.
    for (const c of ch + foldCodePoint(ch)) CLASS[c.charCodeAt(0)]! |= bit;
  }
}

/** JavaScript's `\s`. */
const WHITE_SPACE = "\t\n\v\f\r \u00A0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF";
addClass(SPACE | SEP, WHITE_SPACE);
addClass(SEP, "_-\u2010\u2011\u2012\u2013\u2014\u2015\u2212.:\u00B7");
/** Other ASCII punctuation reads as a separator too (`END/EXTERNAL`, `*UNTRUSTED*`, `(E)(N)(D)`); not `<` and `>`, the brackets. */
addClass(SEP, "!#$%&()*+,/;?@[\\]^`{|}~");
addClass(OPEN, "<\u2039\u00AB\u3008\u27E8\u276E\u27EA");
addClass(CLOSE, ">\u203A\u00BB\u3009\u27E9\u276F\u27EB");

/**
 * So does every other punctuation, symbol or space character of the BMP (`END→EXTERNAL`, `END’EXTERNAL`,
 * `END、EXTERNAL`, `END§EXTERNAL`, quotes and `=` between the words): a reader skips them as it skips `_`.
 * Not the brackets, which have classes of their own; the id is still read by its letters, `=` and quotes.
 * Characters outside the BMP (emoji, `END😀EXTERNAL`) are separators too: what folding leaves of them is
 * never a Latin letter, and the classes are read per UTF-16 unit, so both surrogates are.
 */
const PUNCTUATION_OR_SYMBOL = /^[\p{P}\p{S}\p{Z}\p{Cs}]$/u;
/**
 * A unit with no class yet is classified when first seen (`classOf`), not all 65,536 when the
 * module loads: that took about 20 ms of every start.
 */
const UNKNOWN = 128;
for (let c = 0x21; c < 0x10000; c++) if (CLASS[c] === 0) CLASS[c] = UNKNOWN;

/** The class bits of code unit `c`. */
function classOf(c: number): number {
  const k = CLASS[c]!;
  if (k !== UNKNOWN) return k;
  const found = PUNCTUATION_OR_SYMBOL.test(String.fromCharCode(c)) ? SEP : 0;
  CLASS[c] = found;
  return found;
}

/** Longest id attribute value taken into a look-alike (in folded units). */
const MAX_ID_CHARS = 128;

function is(t: string, i: number, bit: number): boolean {
  return i < t.length && (classOf(t.charCodeAt(i)) & bit) !== 0;
}

function isLetter(t: string, i: number): boolean {
  const c = t.charCodeAt(i);
  return c >= 65 && c <= 90;
}

function skip(t: string, i: number, bit: number): number {
  while (is(t, i, bit)) i++;
  return i;
}

/** End of `word` spelled from `i` with separators allowed between its letters, or -1. */
function wordEnd(t: string, i: number, word: string): number {
  for (let w = 0; w < word.length; w++) {
    if (w > 0) i = skip(t, i, SEP);
    if (t[i] !== word[w]) return -1;
    i++;
  }
  return i;
}

/** Start of `word` spelled so that it ends at `end` (separators allowed between its letters), not before `floor`, or -1. */
function wordStart(t: string, end: number, word: string, floor: number): number {
  let i = end;
  for (let w = word.length - 1; w >= 0; w--) {
    if (w < word.length - 1) while (i > floor && is(t, i - 1, SEP)) i--;
    if (i <= floor || t[i - 1] !== word[w]) return -1;
    i--;
  }
  return i;
}

/** The folded text without its separators, and for each of its units the offset of that unit in the folded text. */
function withoutSeparators(t: string): { text: string; at: Int32Array } {
  const units = new Uint16Array(t.length);
  const at = new Int32Array(t.length);
  let n = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if ((classOf(c) & SEP) !== 0) continue;
    units[n] = c;
    at[n++] = i;
  }
  return { text: n === t.length ? t : UTF16.decode(units.subarray(0, n)), at: at.subarray(0, n) };
}

/** End of an id attribute value starting at `v`: `"…"` or `'…'` (no newline, at most 128 inside), else up to 128 characters that are neither white space nor `>`. */
function idValueEnd(t: string, v: number): number {
  const quote = t[v];
  if (quote === '"' || quote === "'") {
    for (let i = v + 1; i <= v + 1 + MAX_ID_CHARS && i < t.length; i++) {
      if (t[i] === quote) return i + 1;
      if (t[i] === "\n") break;
    }
  }
  let i = v;
  while (i < v + MAX_ID_CHARS && i < t.length && !is(t, i, SPACE) && t[i] !== ">") i++;
  return i;
}

/** After the marker words: an optional `id=` attribute (`I` or `L`: confusables fold I-like letters to l), then closing brackets. */
function tailEnd(t: string, k: number): number {
  const j = skip(t, k, SPACE);
  if ((t[j] === "I" || t[j] === "L") && t[j + 1] === "D") {
    const eq = skip(t, j + 2, SPACE);
    if (t[eq] === "=") k = idValueEnd(t, skip(t, eq + 1, SPACE));
  }
  const c = skip(t, k, SEP);
  const end = skip(t, c, CLOSE);
  return end > c ? end : k;
}

/** How a candidate starts: where, how many opening brackets precede it, and whether `END` (at the start of a word) does. */
interface Head {
  start: number;
  opens: number;
  framed: boolean;
}

/** Left of an anchor spelled from `a`: [opening brackets, separators] [END, separators]. Nothing before `floor` is taken. */
function headAt(t: string, a: number, floor: number): Head {
  let q = a;
  while (q > floor && is(t, q - 1, SEP)) q--;
  const end = wordStart(t, q, "END", floor);
  const p = end >= 0 ? end : a;
  let r = p;
  while (r > floor && is(t, r - 1, SEP)) r--;
  // Opening brackets, separators allowed between them (`< < <`); the look-alike starts at the first bracket.
  let s = r;
  let opens = 0;
  for (let i = r; i > floor && is(t, i - 1, OPEN | SEP); i--) {
    if (is(t, i - 1, OPEN)) {
      opens++;
      s = i - 1;
    }
  }
  // `END` frames a marker as a word of its own (`END_UNTRUSTED_CONTENT`), not as the tail of one (`weekend`).
  const endWord = end >= 0 && (end === floor || end === 0 || !isLetter(t, end - 1));
  return { start: opens > 0 ? s : p, opens, framed: opens > 0 || endWord };
}

/** End of `(_WORD | -WORD)*` from `k`: the rest of a partial marker. */
function wordPartsEnd(t: string, k: number): number {
  while ((t[k] === "_" || t[k] === "-") && isLetter(t, k + 1)) {
    k += 2;
    while (isLetter(t, k)) k++;
  }
  return k;
}

/**
 * The look-alike around the anchor spelled from `a` to `aEnd`, as [start, end), or null.
 * `anchor` is `EXTERNAL`, or `UNTRUSTED` not preceded by `EXTERNAL`. Nothing before `floor` is taken.
 */
function lookAlikeAt(t: string, anchor: string, a: number, aEnd: number, floor: number): [number, number] | null {
  const head = headAt(t, a, floor);
  if (anchor === ANCHOR) {
    // 1. EXTERNAL [separators] UNTRUSTED [[separators] CONTENT]
    const untrusted = wordEnd(t, skip(t, aEnd, SEP), "UNTRUSTED");
    if (untrusted >= 0) {
      const content = wordEnd(t, skip(t, untrusted, SEP), "CONTENT");
      return [head.start, tailEnd(t, content >= 0 ? content : untrusted)];
    }
  }
  // 2. two or more opening brackets, [END_]EXTERNAL or [END_]UNTRUSTED, then (_WORD | -WORD)*
  if (head.opens >= 2) return [head.start, tailEnd(t, wordPartsEnd(t, aEnd))];
  // 3. a framed marker missing one word: EXTERNAL CONTENT or UNTRUSTED CONTENT, after an opening
  //    bracket or a word END, or followed by an id attribute or closing brackets.
  const content = wordEnd(t, skip(t, aEnd, SEP), "CONTENT");
  if (content < 0) return null;
  const tail = tailEnd(t, content);
  return head.framed || tail > content ? [head.start, tail] : null;
}

/**
 * The next anchor in `bare` at or after `from`: its offset and word, or null. `next` caches each
 * word's next offset (-2: not searched yet, -1: none left), so each word's searches move forward only.
 */
function nextAnchor(bare: string, from: number, next: Map<string, number>): { at: number; word: string } | null {
  let best: { at: number; word: string } | null = null;
  for (const word of ANCHORS) {
    let at = next.get(word)!;
    if (at === -2 || (at >= 0 && at < from)) {
      at = bare.indexOf(word, from);
      next.set(word, at);
    }
    if (at >= 0 && (best === null || at < best.at)) best = { at, word };
  }
  return best;
}

/**
 * The marker look-alikes of a folded text, as [start, end) spans in order,
 * without overlap (each one starts where the previous one ended, or later).
 *
 * @example findLookAlikes("A <<<END_EXTERNAL_UNTRUSTED_CONTENT>>> B") // [[2, 38]]
 */
export function findLookAlikes(t: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const bare = withoutSeparators(t);
  const next = new Map(ANCHORS.map((word) => [word, -2]));
  let floor = 0;
  let from = 0;
  for (;;) {
    const anchor = nextAnchor(bare.text, from, next);
    if (anchor === null) return spans;
    const c = anchor.at;
    const span = lookAlikeAt(t, anchor.word, bare.at[c]!, bare.at[c + anchor.word.length - 1]! + 1, floor);
    if (span === null) {
      from = c + 1;
      continue;
    }
    spans.push(span);
    floor = span[1];
    from = c + anchor.word.length;
    while (from < bare.at.length && bare.at[from]! < floor) from++;
  }
}
