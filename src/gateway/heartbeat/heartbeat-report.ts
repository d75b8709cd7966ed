/** The system event a heartbeat with failures leaves on the main session (so the agent and the user learn of it). */
import type { DrainReport } from "./heartbeat-drain";

/** `meta.source` of the report; at most one such event is pending at a time. */
export const HEARTBEAT_REPORT_SOURCE = "heartbeat";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function heartbeatReportText(report: DrainReport, pendingNow: number): string {
  const last = report.failures[report.failures.length - 1];
  const parts = [
    `Heartbeat report: the agent runner failed ${plural(report.failures.length, "heartbeat turn")}` +
      (last ? ` (last: ${last.status}${last.error ? `, ${last.error}` : ""})` : "") +
      "; the events were sent again in smaller batches after a pause.",
  ];
  if (report.consumed > 0) parts.push(`${plural(report.consumed, "event")} went through in ${plural(report.turns, "turn")}.`);
  if (report.shortened > 0) parts.push(`${report.shortened} characters were left out of events too long for one prompt.`);
  const stillSkipped = report.skipped.length - report.setAside.length;
  if (stillSkipped > 0)
    parts.push(`${plural(stillSkipped, "event")} failed even on ${stillSkipped === 1 ? "its own and stays" : "their own and stay"} pending.`);
  if (report.setAside.length > 0) {
    parts.push(
      `${plural(report.setAside.length, "event was", "events were")} set aside because the runner kept refusing ${report.setAside.length === 1 ? "it" : "them"} alone while other events went through; the text is in the journal (ids: ${report.setAside.map((e) => e.id).join(", ")}).`,
    );
  }
  if (report.gaveUp) parts.push(`${plural(pendingNow, "event")} ${pendingNow === 1 ? "stays" : "stay"} pending; the heartbeat tries again later.`);
  return parts.join(" ");
}
