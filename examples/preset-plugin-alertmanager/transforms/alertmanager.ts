/**
 * Prometheus Alertmanager webhook (payload version 4) → an assistant action.
 *
 * - Some alerts firing: an agent run named "Alertmanager <alertname>" whose message
 *   lists every alert of the group (severity, summary, description, labels, start,
 *   link). The session key is derived from Alertmanager's `groupKey`, so repeated
 *   notifications of one group continue one conversation.
 * - Everything resolved: a system event for the main session, picked up at the next
 *   heartbeat (no run, no delivery).
 * - No alerts at all: skipped (204).
 *
 * Loaded by the inbound-webhooks transform loader (TypeScript works as is). The
 * types below are the parts of the transform contract this file uses; a transform
 * inside a project that depends on the package can import `TransformContext` and
 * `defineTransform` from "inbound-webhooks" instead.
 */
import { createHash } from "node:crypto";

interface Alert {
  status?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  generatorURL?: string;
  fingerprint?: string;
}

interface AlertmanagerPayload {
  version?: string;
  status?: string;
  receiver?: string;
  groupKey?: string;
  groupLabels?: Record<string, string>;
  commonLabels?: Record<string, string>;
  externalURL?: string;
  truncatedAlerts?: number;
  alerts?: Alert[];
}

interface Context {
  payload: Record<string, unknown>;
  mapping: { id: string };
}

type Override = { kind: "agent"; name: string; message: string; sessionKey: string } | { kind: "wake"; text: string; mode: "next-heartbeat" } | null;

/** Alerts listed in one message; the rest are counted. */
const MAX_LISTED = 20;
/** Labels shown in the heading or not worth repeating per alert. */
const HIDDEN_LABELS = new Set(["alertname", "severity"]);

const oneLine = (s: unknown): string => (typeof s === "string" ? s.replace(/\s+/g, " ").trim() : "");

function labelsOf(alert: Alert): string {
  return Object.entries(alert.labels ?? {})
    .filter(([k]) => !HIDDEN_LABELS.has(k))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${oneLine(v)}`)
    .join(", ");
}

function describeAlert(alert: Alert, n: number): string {
  const severity = oneLine(alert.labels?.severity) || "unknown";
  const title = oneLine(alert.annotations?.summary) || oneLine(alert.labels?.alertname) || "(no summary)";
  const lines = [`${n}. [${severity}] ${title}`];
  const description = oneLine(alert.annotations?.description);
  if (description) lines.push(`   ${description}`);
  const labels = labelsOf(alert);
  if (labels) lines.push(`   Labels: ${labels}`);
  if (alert.startsAt) lines.push(`   Since: ${oneLine(alert.startsAt)}`);
  if (alert.status === "resolved" && alert.endsAt) lines.push(`   Resolved at: ${oneLine(alert.endsAt)}`);
  const link = oneLine(alert.annotations?.runbook_url) || oneLine(alert.generatorURL);
  if (link) lines.push(`   Link: ${link}`);
  return lines.join("\n");
}

function listAlerts(alerts: Alert[]): string[] {
  const listed = alerts.slice(0, MAX_LISTED).map((a, i) => describeAlert(a, i + 1));
  if (alerts.length > MAX_LISTED) listed.push(`… and ${alerts.length - MAX_LISTED} more.`);
  return listed;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export default function alertmanager(ctx: Context): Override {
  const p = ctx.payload as AlertmanagerPayload;
  const alerts = Array.isArray(p.alerts) ? p.alerts.filter((a): a is Alert => typeof a === "object" && a !== null) : [];
  if (alerts.length === 0) return null;

  const group = oneLine(p.groupLabels?.alertname) || oneLine(p.commonLabels?.alertname) || "alert group";
  const firing = alerts.filter((a) => a.status !== "resolved");
  const resolved = alerts.filter((a) => a.status === "resolved");
  const truncated =
    typeof p.truncatedAlerts === "number" && p.truncatedAlerts > 0 ? [`Alertmanager left out ${plural(p.truncatedAlerts, "further alert")}.`] : [];

  if (firing.length === 0) {
    const text = [`Alertmanager: ${plural(resolved.length, "alert")} of ${group} resolved.`, ...listAlerts(resolved), ...truncated].join("\n\n");
    return { kind: "wake", mode: "next-heartbeat", text };
  }

  const key = typeof p.groupKey === "string" && p.groupKey !== "" ? p.groupKey : JSON.stringify(p.groupLabels ?? {});
  const digest = createHash("sha256").update(key).digest("hex").slice(0, 16);
  const heading = `Alertmanager: ${plural(firing.length, "alert")} firing for ${group}${p.receiver ? ` (receiver ${oneLine(p.receiver)})` : ""}.`;
  const parts = [heading, ...listAlerts(firing)];
  if (resolved.length > 0) parts.push(`Already resolved in this group:\n\n${listAlerts(resolved).join("\n\n")}`);
  parts.push(...truncated);
  if (p.externalURL) parts.push(`Alertmanager: ${oneLine(p.externalURL)}`);
  return { kind: "agent", name: `Alertmanager ${group}`.slice(0, 200), message: parts.join("\n\n"), sessionKey: `hook:alertmanager:${digest}` };
}
