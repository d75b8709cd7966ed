/**
 * One row of the deliveries table, as data (sent as is over the live feed, where
 * the browser builds the row with textContent, assets/deliveries.js) and as markup
 * (the server-rendered table). Both come from the same `deliveryRow`.
 *
 * The time shows relative ("5 min ago") with the exact UTC time on hover; the
 * event (what the mapping's `event` template named) under the hook; badges for an
 * idempotent repeat, a replay and a request that waited for its run.
 */
import type { DeliverySummary } from "../../core/inspection";
import { html, type SafeHtml } from "../../host-contract/html";
import { displayTime, relativeTime } from "./time-format";

export interface DeliveryBadge {
  /** `repeat`, `replay` or `waited` (also the CSS class `badge-<kind>`). */
  kind: string;
  label: string;
  title: string;
}

export interface DeliveryRow {
  id: string;
  href: string;
  /** ISO-8601 as recorded. */
  receivedAt: string;
  /** `YYYY-MM-DD HH:MM:SS UTC` (the hover text). */
  time: string;
  hook: string;
  event: string;
  mapping: string;
  status: number;
  /** `s2xx`, `s4xx`, `s5xx` … (the status colour). */
  statusClass: string;
  code: string;
  latency: string;
  badges: DeliveryBadge[];
  runStatus: string;
}

export function deliveryBadges(d: Pick<DeliverySummary, "repeat" | "replayOf" | "waited">): DeliveryBadge[] {
  const badges: DeliveryBadge[] = [];
  if (d.repeat) badges.push({ kind: "repeat", label: "repeat", title: "Idempotent repeat: the earlier request's answer was sent again; nothing new started." });
  if (d.replayOf) badges.push({ kind: "replay", label: "replay", title: `Replay of delivery ${d.replayOf}.` });
  if (d.waited) badges.push({ kind: "waited", label: "waited", title: "Waited for its run (Prefer: wait): the latency includes the run." });
  return badges;
}

/** `base`: where the host mounts the pages (`/ui`): the row links to `<base>/deliveries/<id>`. */
export function deliveryRow(d: DeliverySummary, runStatus: (runId: string) => string | undefined, base: string): DeliveryRow {
  const runs = d.runIds.map((id) => runStatus(id) ?? "unknown");
  return {
    id: d.id,
    href: `${base}/deliveries/${encodeURIComponent(d.id)}`,
    receivedAt: d.receivedAt,
    time: `${displayTime(d.receivedAt)} UTC`,
    hook: d.hook ?? "",
    event: d.event ?? "",
    mapping: d.mappingId ?? "",
    status: d.status,
    statusClass: `s${String(d.status).charAt(0)}xx`,
    code: d.code ?? "",
    latency: `${Math.round(d.latencyMs)} ms`,
    badges: deliveryBadges(d),
    runStatus: runs.length === 0 ? "" : runs.length === 1 ? runs[0]! : `${runs.length} runs: ${[...new Set(runs)].join(", ")}`,
  };
}

export function renderBadges(badges: readonly DeliveryBadge[]): SafeHtml {
  return html`${badges.map((b) => html` <span class="badge badge-${b.kind}" title="${b.title}">${b.label}</span>`)}`;
}

export function renderDeliveryRow(r: DeliveryRow, nowMs: number): SafeHtml {
  return html`<tr data-id="${r.id}">
<td class="when" data-label="Received"><time datetime="${r.receivedAt}" title="${r.time}" data-relative>${relativeTime(r.receivedAt, nowMs)}</time></td>
<td class="what" data-label="Hook"><a href="${r.href}">${r.hook || "(none)"}</a>${r.event ? html` <span class="event">${r.event}</span>` : ""}${renderBadges(r.badges)}</td>
<td class="mapping" data-label="Mapping">${r.mapping}</td>
<td class="answer" data-label="Status"><span class="status ${r.statusClass}">${r.status}</span> ${r.code}</td>
<td class="num latency" data-label="Latency">${r.latency}</td>
<td class="run" data-label="Run">${r.runStatus}</td>
</tr>`;
}
