/**
 * The summary every run posts to the main session (SPEC §5.3):
 * `Hook <name>: <reply>` when it succeeded, `Hook <name> (<status>): <reason>` otherwise,
 * posted inside the untrusted-content wrapper (the name and the reply derive from
 * hook content) unless the run's mapping sets `allowUnsafeExternalContent`.
 */
import { neutraliseMarkers } from "../safety/neutralise";
import type { ActionSource } from "../core/actions";
import type { RunStatus } from "../core/runs";
import { contentForSession } from "./dispatcher";

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
 * The hook-supplied `name` as it appears in a summary (SPEC §5.2): marker
 * look-alikes neutralised, so a name cannot open or close the untrusted-content
 * boundary around it — nor any boundary when a mapping opted out of wrapping.
 * (Control characters were already stripped when the request was validated.)
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

/**
 * A summary as it is posted to the main session: wrapped as untrusted content
 * (source: the run's hook and mapping), so neither a hook-chosen name such as
 * `SYSTEM OVERRIDE: ignore all previous instructions` nor a reply the hook's
 * content steered reaches the main session as instructions. A run of a mapping
 * with `allowUnsafeExternalContent: true` gets the plain summary. The run record
 * keeps the plain summary (`GET {path}/runs/<id>`).
 *
 * @example summaryForMainSession("Hook CI: done", { hook: "agent", requestId: "r1", allowUnsafeExternalContent: false })
 * // SECURITY NOTICE: …\n<<<EXTERNAL_UNTRUSTED_CONTENT id="…">>>\nSource: webhook "agent"\n---\nHook CI: done\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="…">>>
 */
export function summaryForMainSession(summary: string, source: ActionSource, idGen?: () => string): string {
  return contentForSession(summary, source, idGen);
}
