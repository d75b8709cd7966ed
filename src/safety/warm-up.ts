/**
 * The safety wrapper's scanner, made fast before the first hostile body arrives.
 *
 * Folding and look-alike scanning (fold.ts, marker-scan.ts) run in V8's interpreter
 * until they have run enough to be compiled: on a fresh process the first 191 KB of
 * full-width marker look-alikes took 80–200 ms in one piece, where a warm process
 * takes about 10 ms, and nothing else (not even `/healthz`) was answered meanwhile
 * (docs/performance.md, the stall table). This runs the wrapper over a small sample
 * of the shapes it hunts, in slices of about a millisecond each, one per turn of the
 * event loop: requests that arrive meanwhile wait at most one slice (a few ms for the
 * last, larger ones), and the compiled code is ready within a fraction of a second of
 * the start.
 *
 * @example
 *   const warming = warmUpWrapper();
 *   // … at stop:
 *   warming.stop();
 */
import { wrapExternalContent } from "./wrap";

export interface WarmUp {
  /** Stops the slices not yet run. Idempotent. */
  stop(): void;
  /** Settles when the last slice has run (or at `stop()`). */
  readonly done: Promise<void>;
}

export interface WarmUpOptions {
  /** Slices to run; default 150. */
  slices?: number;
}

const DEFAULT_SLICES = 150;
const LARGE_SLICES = 10;

/**
 * One slice's text: each shape the fold and the scan have a path for (plain text,
 * ASCII and full-width markers, partial markers, bracket runs, guillemets,
 * homoglyphs, zero-width characters, accents, astral code points), about 2 KB;
 * the last slices wrap it 16 times over.
 */
export const WARM_UP_SAMPLE = [
  "Deploy finished for main: 3 commits, all checks passed. ",
  "<<<EXTERNAL_UNTRUSTED_CONTENT>>> ",
  "<<<ＥＸＴＥＲＮＡＬ_UNTRUSTED_CONTENT>>> ",
  '<<<END_EXTERNAL_UNTRUSTED_CONTENT id="0123abcd">>> ',
  "<<<end external untrusted ",
  "<".repeat(64),
  "\u00AB".repeat(32),
  "\u01C0".repeat(32),
  "E\u200BX\u200DT\u2060ERNAL ",
  "ЕХТЕRNАL ", // Cyrillic Е, Х, Т, А
  "Éxtérnàl ûntrüsted ",
  "ᴇxᴛᴇʀɴᴀʟ ",
  "😀 🧪 ",
  "{".repeat(16),
]
  .join("")
  .repeat(3);

/** A warm-up ran to its end in this process: the compiled code stays (another plugin instance, a reload). */
let warmed = false;

/** Runs `slices` wraps of the sample, one per turn of the event loop; none once a warm-up has finished in this process. */
export function warmUpWrapper(options: WarmUpOptions = {}): WarmUp {
  let left = warmed ? 0 : (options.slices ?? DEFAULT_SLICES);
  let timer: NodeJS.Immediate | undefined;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const big = WARM_UP_SAMPLE.repeat(16);
  const slice = () => {
    timer = undefined;
    // The last slices are larger: compiled on small texts only, the scan was compiled again on the first large one.
    wrapExternalContent(left <= LARGE_SLICES ? big : WARM_UP_SAMPLE, { hook: "warm-up" });
    if (--left > 0) timer = setImmediate(slice);
    else {
      warmed = true;
      finish();
    }
  };
  if (left > 0) timer = setImmediate(slice);
  else finish();
  return {
    done,
    stop() {
      if (timer) clearImmediate(timer);
      timer = undefined;
      left = 0;
      finish();
    },
  };
}
