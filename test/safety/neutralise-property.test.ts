/**
 * Property: a marker look-alike built from any of the caught variants — each
 * letter in any case, full width, mathematical bold, small capital, Cherokee,
 * Lisu, Canadian syllabics, Cyrillic/Greek or Latin-extended form, brackets of
 * every caught kind, any separators, invisible characters in between — put into
 * random text never leaves a live marker behind, and neutralising again changes
 * nothing (one pass is enough).
 */
import fc from "fast-check";
import { NEUTRALISED_MARKER, neutraliseMarkers } from "../../src/safety/neutralise";
import { foldForDetection } from "../../src/safety/fold";
import { findLookAlikes } from "../../src/safety/marker-scan";
import { wrapExternalContent } from "../../src/safety/wrap";

/** Variants of each marker letter that must all be read as it. */
const LETTERS: Record<string, string[]> = {
  E: ["E", "e", "\uFF25", "\u{1D404}", "\u1D07", "\u13AC", "\uA4F0", "\u0415", "\u03B5", "\u00C9", "\u018E"],
  N: ["N", "n", "\uFF2E", "\u{1D40D}", "\u0274", "\uA4E0", "\u039D", "\u144E"],
  D: ["D", "d", "\uFF24", "\u{1D403}", "\u1D05", "\u13A0", "\uA4D3", "\u15EA", "\u0500"],
  X: ["X", "x", "\uFF38", "\u{1D417}", "\uA4EB", "\u0425", "\u03A7"],
  T: ["T", "t", "\uFF34", "\u{1D413}", "\u1D1B", "\u13A2", "\uA4D4", "\u0422", "\u03A4", "\u01AC"],
  R: ["R", "r", "\uFF32", "\u{1D411}", "\u0280", "\u13D2", "\uA4E3", "\u1587"],
  A: ["A", "a", "\uFF21", "\u{1D400}", "\u1D00", "\u13AA", "\uA4EE", "\u0410", "\u0391", "\u023A"],
  L: ["L", "l", "\uFF2C", "\u{1D40B}", "\u029F", "\u13DE", "\uA4E1", "\u14AA", "\u023D"],
  U: ["U", "u", "\uFF35", "\u{1D414}", "\u1D1C", "\uA4F4", "\u144C"],
  S: ["S", "s", "\uFF33", "\u{1D412}", "\uA731", "\u13DA", "\uA4E2", "\u0405"],
  C: ["C", "c", "\uFF23", "\u{1D402}", "\u1D04", "\u13DF", "\uA4DA", "\u0421", "\u023B"],
  O: ["O", "o", "\uFF2F", "\u{1D40E}", "\u1D0F", "\uA4F3", "\u041E", "\u039F"],
  I: ["I", "i", "\uFF29", "\u0456", "\u0399"],
};
const OPEN = ["<", "\u2039", "\u00AB", "\uFF1C", "\u1438", "\u276E", "\u3008", "\u27E8", "\u226A"];
const CLOSE = [">", "\u203A", "\u00BB", "\uFF1E", "\u1433", "\u276F", "\u3009", "\u27E9", "\u226B"];
const SEPARATORS = ["", "_", " ", "-", "\u2010", "\u2013", "\u2014", ".", ":", "\u00B7", "\uFF3F"];
const INVISIBLES = ["", "", "", "\u200B", "\u2060", "\u00AD", "\u200D", "\u202E"];

const word = (w: string) =>
  fc
    .tuple(...Array.from(w, (c) => fc.tuple(fc.constantFrom(...LETTERS[c]!), fc.constantFrom(...INVISIBLES))))
    .map((parts) => parts.map(([l, inv]) => l + inv).join(""));
const run = (pool: string[], min: number) => fc.array(fc.constantFrom(...pool), { minLength: min, maxLength: 3 }).map((a) => a.join(""));
const sep = fc.constantFrom(...SEPARATORS);
const id = fc.oneof(
  fc.constant(""),
  fc
    .tuple(word("I"), word("D"), fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 8, maxLength: 32 }))
    .map(([i, d, hex]) => ` ${i}${d}="${hex}"`),
);

/** An end marker, a start marker, or a partial marker, each character drawn from its caught variants. */
const lookAlike = fc.oneof(
  fc.tuple(run(OPEN, 0), word("END"), sep, word("EXTERNAL"), sep, word("UNTRUSTED"), sep, word("CONTENT"), id, run(CLOSE, 0)).map((parts) => parts.join("")),
  fc.tuple(run(OPEN, 0), word("EXTERNAL"), sep, word("UNTRUSTED"), sep, word("CONTENT"), id, run(CLOSE, 1)).map((parts) => parts.join("")),
  fc.tuple(run(OPEN, 2), word("END"), sep, word("EXTERNAL")).map((parts) => parts.join("")),
  fc.tuple(run(OPEN, 1), word("END"), sep, word("UNTRUSTED"), sep, word("CONTENT"), id, run(CLOSE, 0)).map((parts) => parts.join("")),
);
const filler = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.constantFrom("", " ", "\n", "<<<", "\u00AB\u00AB", "END", "EXTERNAL", "UNTRUSTED ", "\u1D07", ">>>", '"', "id=", "\u200B"),
);

const liveMarkers = (text: string) => findLookAlikes(foldForDetection(text).text);

describe("neutralisation, property-based", () => {
  it("no caught look-alike survives among random text, and a second pass changes nothing", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(filler, lookAlike, filler), { minLength: 1, maxLength: 4 }), (chunks) => {
        const text = chunks.map((c) => c.join("")).join("");
        const out = neutraliseMarkers(text);
        expect(out).toContain(NEUTRALISED_MARKER);
        expect(liveMarkers(out)).toEqual([]);
        expect(neutraliseMarkers(out)).toBe(out);
      }),
      { numRuns: 600, seed: 7 },
    );
  });

  it("wrapped, the text holds exactly the wrapper's two markers, the end marker last", () => {
    const END = '<<<END_EXTERNAL_UNTRUSTED_CONTENT id="0123456789abcdef">>>';
    fc.assert(
      fc.property(fc.array(fc.oneof(filler, lookAlike), { maxLength: 8 }), (parts) => {
        const out = wrapExternalContent(parts.join(""), { hook: "agent" }, { idGen: () => "0123456789abcdef" });
        expect(liveMarkers(out)).toHaveLength(2);
        expect(out.endsWith(`\n${END}`)).toBe(true);
        expect(out.split(END)).toHaveLength(2);
      }),
      { numRuns: 600, seed: 11 },
    );
  });
});
