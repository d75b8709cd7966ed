/**
 * One row of the deliveries table, as data (sent as is over the live feed, where
 * the browser builds the row with textContent) and as markup (the server-rendered
 * table). Both come from the same `deliveryRow`.
 */
import type { DeliverySummary } from "../../../host-contract/inspection";
import { html, type SafeHtml } from "../html";

export interface DeliveryRow {
  id: string;
  href: string;
  /** ISO-8601 as recorded. */
  receivedAt: string;
  /** `YYYY-MM-DD HH:MM:SS` UTC. */
  time: string;
  hook: string;
  mapping: string;
  status: number;
  /** `s2xx`, `s4xx`, `s5xx` … (the status colour). */
  statusClass: string;
  code: string;
  latency: string;
  runStatus: string;
}

/** `2026-11-22T17:24:24.123Z` → `2026-11-22 17:24:24`. */
export function displayTime(iso: string): string {
  return iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "");
}

export function deliveryRow(d: DeliverySummary, runStatus: (runId: string) => string | undefined): DeliveryRow {
  const runs = d.runIds.map((id) => runStatus(id) ?? "unknown");
  return {
    id: d.id,
    href: `/ui/deliveries/${encodeURIComponent(d.id)}`,
    receivedAt: d.receivedAt,
    time: displayTime(d.receivedAt),
    hook: d.hook ?? "",
    mapping: d.mappingId ?? "",
    status: d.status,
    statusClass: `s${String(d.status).charAt(0)}xx`,
    code: d.code ?? "",
    latency: `${Math.round(d.latencyMs)} ms`,
    runStatus: runs.length === 0 ? "" : runs.length === 1 ? runs[0]! : `${runs.length} runs: ${[...new Set(runs)].join(", ")}`,
  };
}

export function renderDeliveryRow(r: DeliveryRow): SafeHtml {
  return html`<tr data-id="${r.id}">
<td><time datetime="${r.receivedAt}">${r.time}</time></td>
<td><a href="${r.href}">${r.hook || "(none)"}</a></td>
<td>${r.mapping}</td>
<td><span class="status ${r.statusClass}">${r.status}</span> ${r.code}</td>
<td class="num">${r.latency}</td>
<td>${r.runStatus}</td>
</tr>`;
}
