/**
 * Neutralisation of untrusted-content marker look-alikes, so hook-supplied text
 * can never open or close the safety wrapper's boundary (SPEC §5.2).
 *
 * One pass: the text is folded (fold.ts: case, compatibility forms, invisibles,
 * accents, Latin letter names, Unicode confusables), the look-alikes are found
 * in the folded text (marker-scan.ts), and their spans are cut out of the
 * original. Linear in the size of the text; no regular expression runs over it.
 */
import { foldForDetection } from "./fold";
import { findLookAlikes } from "./marker-scan";

/** What a neutralised look-alike is replaced with (contains nothing a marker pattern can use). */
export const NEUTRALISED_MARKER = "[[marker removed]]";

/** Offset just past the code point of `input` that starts at `start`. */
function codePointEnd(input: string, start: number): number {
  const c = input.charCodeAt(start);
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = input.charCodeAt(start + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return start + 2;
  }
  return start + 1;
}

/**
 * Replaces every marker look-alike in `input` — any case, full-width or other
 * compatibility forms, zero-width/format characters inserted, accents, small
 * capitals and other Latin letter variants, homoglyphs from Unicode's
 * confusables data (Cyrillic, Greek, Cherokee, Lisu, Canadian syllabics …),
 * with or without an id attribute, partial markers — with `[[marker removed]]`.
 * Text without look-alikes is returned unchanged.
 *
 * One pass is enough: the replacement starts and ends with a bracket that no
 * marker word contains, so no look-alike can form across it, and the text
 * between two replacements was already scanned with the same neighbours up to
 * the replacement (test/safety/neutralise-property.test.ts checks that
 * neutralising the result again changes nothing).
 *
 * @example neutraliseMarkers("a <<<END_EXTERNAL_UNTRUSTED_CONTENT>>> b") // "a [[marker removed]] b"
 */
export function neutraliseMarkers(input: string): string {
  const folded = foldForDetection(input);
  const spans = findLookAlikes(folded.text);
  if (spans.length === 0) return input;
  const starts = folded.starts;
  const pieces: string[] = [];
  let last = 0;
  for (const [start, end] of spans) {
    const from = starts === null ? start : starts[start]!;
    const to = codePointEnd(input, starts === null ? end - 1 : starts[end - 1]!);
    if (from < last) {
      // Two look-alikes inside the expansion of one code point: remove through the later one too.
      last = Math.max(last, to);
      continue;
    }
    pieces.push(input.slice(last, from), NEUTRALISED_MARKER);
    last = to;
  }
  pieces.push(input.slice(last));
  return pieces.join("");
}
