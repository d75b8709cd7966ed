/**
 * The one polling helper of the test suites: waits until `pred` holds, checking
 * every `intervalMs`, and fails after `timeoutMs` naming what it waited for (plus
 * `detail()`, e.g. the log so far). Tests wait on observable state this way,
 * never with a bare sleep.
 */
export interface UntilOptions {
  /** Default 10 s. */
  timeoutMs?: number;
  /** Default 25 ms. */
  intervalMs?: number;
  /** Appended to the failure message. */
  detail?: () => string;
}

export async function until(pred: () => boolean | Promise<boolean>, what: string, opts: UntilOptions = {}): Promise<void> {
  const { timeoutMs = 10_000, intervalMs = 25, detail } = opts;
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `\n${detail()}` : ""}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
