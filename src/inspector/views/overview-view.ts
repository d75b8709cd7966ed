/** The Overview page: queue depth, runs by outcome, and two small uPlot charts (data in data- attributes). */
import type { HooksSummary } from "../../core/inspection";
import { html } from "../../host-contract/html";
import { STATUS_CLASSES, type OverviewSeries } from "../overview-stats";
import { displayTime } from "./time-format";

export interface OverviewPageData {
  summary: HooksSummary;
  series: OverviewSeries;
  runs: Array<[string, number]>;
  /** How many recent runs `runs` counts. */
  runsSampled: number;
  minutes: number;
}

export function renderOverviewContent(data: OverviewPageData) {
  const s = data.summary;
  const totals = STATUS_CLASSES.map((c) => [c, data.series.byStatus[c].reduce((a, b) => a + b, 0)] as const);
  return html`<ul class="cards">
<li><span class="label">Queued runs</span> <span class="value" id="queued">${s.queued}</span></li>
<li><span class="label">Running</span> <span class="value" id="running">${s.running}</span></li>
<li><span class="label">Runs failed or timed out, last hour</span> <span class="value" id="failed-last-hour">${s.failedLastHour}</span></li>
<li><span class="label">Ledger entries</span> <span class="value">${s.ledgerEntries}</span></li>
<li><span class="label">Last delivery (UTC)</span> <span class="value small">${s.lastDeliveryAt ? displayTime(s.lastDeliveryAt) : "none yet"}</span></li>
</ul>
<p class="muted clock">Times are UTC.</p>
<section aria-labelledby="h-rpm"><h2 id="h-rpm">Requests per minute by status (last ${data.minutes} minutes, UTC)</h2>
<div class="chart" id="chart-requests" data-chart="requests" data-series="${JSON.stringify({ x: data.series.minutes, ...data.series.byStatus })}"></div>
<p class="muted">${data.series.total} requests: ${totals.map(([c, n], i) => html`${i ? ", " : ""}${n} ${c}`)}.</p></section>
<section aria-labelledby="h-latency"><h2 id="h-latency">Accept latency p50 / p99 (ms)</h2>
<div class="chart" id="chart-latency" data-chart="latency" data-series="${JSON.stringify({ x: data.series.minutes, p50: data.series.p50, p99: data.series.p99 })}"></div>
<p class="muted" id="waited-note">${
    data.series.waited === 0
      ? "No request waited for its run (Prefer: wait) in this window."
      : `${data.series.waited} ${data.series.waited === 1 ? "request" : "requests"} waited for ${data.series.waited === 1 ? "its run" : "their runs"} (Prefer: wait) and ${data.series.waited === 1 ? "is" : "are"} left out of the accept latency (${data.series.waited === 1 ? "its" : "their"} latency includes the run).`
  }</p></section>
<section aria-labelledby="h-runs"><h2 id="h-runs">Runs by outcome <span class="muted">(last ${data.runsSampled} runs)</span></h2>
${data.runs.length === 0 ? html`<p class="muted">No runs yet.</p>` : html`<table class="outcomes"><thead><tr><th scope="col">Outcome</th><th scope="col">Runs</th></tr></thead><tbody>${data.runs.map(([status, n]) => html`<tr><td><span class="run-${status}">${status}</span></td><td class="num">${n}</td></tr>`)}</tbody></table>`}</section>`;
}
