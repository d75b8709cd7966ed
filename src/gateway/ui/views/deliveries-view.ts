/** The Deliveries page: filters, the newest deliveries, live rows from the feed, the next page. */
import { html } from "../html";
import { filterQueryString, SINCE_WINDOWS, type DeliveryFilters } from "../delivery-filters";
import { renderDeliveryRow, type DeliveryRow } from "./delivery-row";

export function renderDeliveriesContent(f: DeliveryFilters, rows: DeliveryRow[], pageSize: number) {
  const qs = filterQueryString(f);
  const live = f.before === "";
  const next = rows.length >= pageSize ? rows[rows.length - 1]!.id : undefined;
  return html`<form method="get" action="/ui/deliveries" class="filters" role="search">
<label>Hook <input name="hook" value="${f.hook}" maxlength="200"></label>
<label>Status <input name="status" value="${f.status}" placeholder="2xx or 404" size="6"></label>
<label>Time <select name="since"><option value="">any time</option>${Object.entries(SINCE_WINDOWS).map(
    ([v, w]) => html`<option value="${v}"${v === f.since ? html` selected` : ""}>${w.label}</option>`,
  )}</select></label>
<button type="submit">Filter</button> <a href="/ui/deliveries">Clear</a>
</form>
${f.problem ? html`<p class="error" role="alert">${f.problem}</p>` : ""}
<p id="live-status" class="muted" aria-live="polite">${live ? "Live: new deliveries appear at the top." : "Older deliveries (not live)."}</p>
<div class="table-wrap"><table class="deliveries">
<caption class="visually-hidden">Deliveries, newest first</caption>
<thead><tr><th scope="col">Time (UTC)</th><th scope="col">Hook</th><th scope="col">Mapping</th><th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Run</th></tr></thead>
<tbody id="delivery-rows"${live ? html` data-live="/ui/api/events${qs}"` : ""}>
${rows.map(renderDeliveryRow)}
</tbody>
</table></div>
${rows.length === 0 ? html`<p id="no-deliveries">No deliveries match.</p>` : ""}
${next ? html`<p><a href="/ui/deliveries${qs}${qs ? "&" : "?"}before=${encodeURIComponent(next)}">Older deliveries</a></p>` : ""}`;
}
