/**
 * The summary every run posts to the main session (SPEC §5.3):
 * `Hook <name>: <reply>` when it succeeded, `Hook <name> (<status>): <reason>` otherwise.
 */
import { neutraliseMarkers } from "../safety/neutralise";
import type { RunStatus } from "../core/runs";

/** Bound of the reply (or reason) part of a summary, in characters. */
export const SUMMARY_MAX_CHARS = 2000;
/** Bound of a note appended to a summary (e.g. a delivery failure). */
export const SUMMARY_NOTE_MAX_CHARS = 200;

/** Trims whitespace and bounds `text` to `max` characters (code points), ending with "…" when cut. */
export function clip(text: string, max: number): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  const chars = Array.from(trimmed);
  return chars.length <= max ? trimmed : chars.slice(0, max - 1).join("") + "…";
}

/**
 * The hook-supplied `name` as it may appear in a summary on the main session
 * (SPEC §5.2): marker look-alikes neutralised, so a name cannot open or close
 * the untrusted-content boundary of anything around it. (Control characters were
 * already stripped when the request was validated.)
 */
export function summaryName(name: string): string {
  return neutraliseMarkers(name);
}

/**
 * `Hook <name>: <reply, trimmed to 2000 chars>`, plus `\n(<note>)` when something
 * about the run needs saying (e.g. the reply could not be delivered).
 *
 * @example successSummary("GitHub", "3 new issues") // "Hook GitHub: 3 new issues"
 */
export function successSummary(name: string, reply: string, note?: string): string {
  const body = clip(reply, SUMMARY_MAX_CHARS) || "(empty reply)";
  return `Hook ${summaryName(name)}: ${body}` + (note ? `\n(${clip(note, SUMMARY_NOTE_MAX_CHARS)})` : "");
}

/**
 * `Hook <name> (<status>): <reason>` for a run that did not succeed.
 *
 * @example failureSummary("CRM", "timed_out", "the run did not finish within 1 s") // "Hook CRM (timed_out): the run did not finish within 1 s"
 */
export function failureSummary(name: string, status: Exclude<RunStatus, "succeeded" | "queued" | "running">, reason: string): string {
  return `Hook ${summaryName(name)} (${status}): ${clip(reason, SUMMARY_MAX_CHARS) || "no reason was given"}`;
}
