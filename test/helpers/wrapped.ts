/**
 * Reading texts wrapped by the external-content safety wrapper (SPEC §5.2) in
 * tests: what is inside, and from which source. Strict: a text that is not
 * exactly one well-formed wrapper (notice, start marker, `Source:` line, `---`,
 * content, end marker with the same id) throws, naming what is wrong.
 *
 * @example wrappedContent(host.systemEvents[0].text) // "Hook CI: echo: …"
 */
import { UNTRUSTED_NOTICE } from "../../src/safety/wrap";

export interface Unwrapped {
  /** The marker id (hex). */
  id: string;
  /** The `Source: …` line. */
  source: string;
  /** The wrapped content. */
  content: string;
}

const START = /^<<<EXTERNAL_UNTRUSTED_CONTENT id="([0-9a-f]{8,64})">>>$/;

/** Splits a wrapped text into its parts; throws when `text` is not one well-formed wrapper. */
export function unwrap(text: string): Unwrapped {
  const lines = text.split("\n");
  const fail = (what: string): never => {
    throw new Error(`not a wrapped text (${what}): ${JSON.stringify(text.slice(0, 300))}`);
  };
  if (lines.length < 6) fail("too few lines");
  if (lines[0] !== UNTRUSTED_NOTICE) fail("no notice on the first line");
  const id = START.exec(lines[1]!)?.[1] ?? fail("no start marker on the second line");
  if (!lines[2]!.startsWith("Source: webhook ")) fail("no Source line");
  if (lines[3] !== "---") fail("no --- line");
  if (lines[lines.length - 1] !== `<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>`) fail("the last line is not the matching end marker");
  return { id, source: lines[2]!, content: lines.slice(4, -1).join("\n") };
}

/** The content of a wrapped text (see `unwrap`). */
export function wrappedContent(text: string): string {
  return unwrap(text).content;
}

/** The content of a wrapped text, or undefined when `text` is not one (for predicates over mixed events). */
export function wrappedContentOrUndefined(text: string): string | undefined {
  try {
    return unwrap(text).content;
  } catch {
    return undefined;
  }
}
