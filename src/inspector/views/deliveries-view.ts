/**
 * The Deliveries page: search and filters, the newest deliveries, live rows from
 * the feed, the next page. The feed's URL carries only the filters that were valid
 * (a bad one is named on the page, never sent to the feed); a search or an older
 * page is a snapshot, not live.
 */
import { html } from "../../host-contract/html";
import { filterQueryString, liveQueryString, SINCE_WINDOWS, type DeliveryFilters } from "../delivery-filters";
import { renderDeliveryRow, type DeliveryRow } from "./delivery-row";

function liveText(f: DeliveryFilters): string {
  if (f.before !== "") return "Older deliveries (not live).";
  if (f.query.search !== undefined) return "Search results, newest first (not live).";
  return "Live: new deliveries appear at the top.";
}

/** Where the host mounts the pages (`/ui`), and its login page and session check, when it has them (the live feed's script links to them). */
export interface DeliveriesPageHost {
  base: string;
  loginPath?: string;
  sessionCheckPath?: string;
  /** Where the live feed opens (`<liveFeedBase>/api/events`), when not `base` (OperatorRouteContext.liveFeedBase). */
  liveFeedBase?: string;
}

export function renderDeliveriesContent(f: DeliveryFilters, rows: DeliveryRow[], pageSize: number, nowMs: number, hostPaths: DeliveriesPageHost) {
  const base = hostPaths.base;
  const qs = filterQueryString(f);
  const live = f.before === "" && f.query.search === undefined;
  // A bulk replay needs a filter (the API refuses none) and a valid one.
  const bulk = !f.problem && [f.query.hook, f.query.status, f.query.since, f.query.search].some((v) => v !== undefined);
  const next = rows.length >= pageSize ? rows[rows.length - 1]!.id : undefined;
  return html`<form method="get" action="${base}/deliveries" class="filters" role="search">
<label class="search">Search <input name="search" type="search" value="${f.search}" maxlength="200" placeholder="hook, event, status or a word of the body"></label>
<label>Hook <input name="hook" value="${f.hook}" maxlength="200" size="10"></label>
<label>Status <input name="status" value="${f.status}" placeholder="2xx or 404" size="6"></label>
<label>Time <select name="since"><option value="">any time</option>${Object.entries(SINCE_WINDOWS).map(
    ([v, w]) => html`<option value="${v}"${v === f.since ? html` selected` : ""}>${w.label}</option>`,
  )}</select></label>
<button type="submit">Filter</button> <a href="${base}/deliveries">Clear</a>
</form>
${f.problem ? html`<p class="error" role="alert" id="filter-problem">${f.problem}</p>` : ""}
${bulk ? html`<p><a id="bulk-replay" href="${base}/deliveries/replay${qs}">Replay all that match…</a> <span class="muted">(a preview counts them first)</span></p>` : ""}
<p id="live-status" class="muted" aria-live="polite">${liveText(f)}</p>
<table class="deliveries reflow">
<caption class="visually-hidden">Deliveries, newest first</caption>
<thead><tr><th scope="col">Received</th><th scope="col">Hook and event</th><th scope="col">Mapping</th><th scope="col">Status</th><th scope="col" class="num">Latency</th><th scope="col">Run</th></tr></thead>
<tbody id="delivery-rows"${live ? html` data-live="${hostPaths.liveFeedBase ?? base}/api/events${liveQueryString(f)}"${hostPaths.loginPath ? html` data-login="${hostPaths.loginPath}"` : ""}${hostPaths.sessionCheckPath ? html` data-session="${hostPaths.sessionCheckPath}"` : ""}` : ""}>
${rows.map((r) => renderDeliveryRow(r, nowMs))}
</tbody>
</table>
${rows.length === 0 ? html`<p id="no-deliveries">No deliveries match.</p>` : ""}
${next ? html`<p><a href="${base}/deliveries${qs}${qs ? "&" : "?"}before=${encodeURIComponent(next)}">Older deliveries</a></p>` : ""}`;
}
