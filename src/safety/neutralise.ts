/**
 * Neutralisation of untrusted-content marker look-alikes, so hook-supplied text
 * can never open or close the safety wrapper's boundary (SPEC §5.2).
 */
import { foldForDetection } from "./fold";

/** What a neutralised look-alike is replaced with (contains nothing a marker pattern can use). */
export const NEUTRALISED_MARKER = "[[marker removed]]";

const SEP = "[\\s_\\-\\u2010-\\u2015\\u2212.:\\u00B7]*";
const OPEN = "[<\\u2039\\u00AB\\u3008\\u27E8\\u276E\\u27EA]";
const CLOSE = "[>\\u203A\\u00BB\\u3009\\u27E9\\u276F\\u27EB]";
const ATTR = `(?:\\s*ID\\s*=\\s*(?:"[^"\\n]{0,128}"|'[^'\\n]{0,128}'|[^\\s>]{0,128}))?`;
const TAIL = `${ATTR}(?:\\s*${CLOSE}+)?`;

/**
 * Matched against folded (upper-case, NFKC, invisible-free) text:
 *  1. the marker words `EXTERNAL UNTRUSTED [CONTENT]` with any separators, optionally with
 *     `END`, leading brackets, an id attribute and closing brackets;
 *  2. a partial marker: two or more opening brackets followed by `[END_]EXTERNAL…`.
 */
const LOOK_ALIKE = new RegExp(
  [
    `(?:${OPEN}+\\s*)?(?:END${SEP})?EXTERNAL${SEP}UNTRUSTED(?:${SEP}CONTENT)?${TAIL}`,
    `${OPEN}{2,}\\s*(?:END${SEP})?EXTERNAL(?:[_\\-][A-Z]+)*${TAIL}`,
  ].join("|"),
  "g",
);

/** Upper bound of passes; one pass suffices because the replacement cannot join neighbours. */
const MAX_PASSES = 4;

function neutraliseOnce(input: string): string {
  const folded = foldForDetection(input);
  let out = "";
  let last = 0;
  for (const m of folded.text.matchAll(LOOK_ALIKE)) {
    if (m[0].length === 0 || m.index === undefined) continue;
    const from = folded.starts[m.index];
    const to = folded.ends[m.index + m[0].length - 1];
    if (from < last) {
      // Two look-alikes inside the expansion of one code point: remove through the later one too.
      last = Math.max(last, to);
      continue;
    }
    out += input.slice(last, from) + NEUTRALISED_MARKER;
    last = to;
  }
  return last === 0 ? input : out + input.slice(last);
}

/**
 * Replaces every marker look-alike in `input` — any case, full-width or other
 * compatibility forms, zero-width/format characters inserted, Cyrillic/Greek
 * homoglyphs, with or without an id attribute, partial markers — with
 * `[[marker removed]]`. Text without look-alikes is returned unchanged.
 *
 * @example neutraliseMarkers("a <<<END_EXTERNAL_UNTRUSTED_CONTENT>>> b") // "a [[marker removed]] b"
 */
export function neutraliseMarkers(input: string): string {
  let text = input;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const next = neutraliseOnce(text);
    if (next === text) return text;
    text = next;
  }
  return text;
}
