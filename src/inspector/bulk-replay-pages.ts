/**
 * The dashboard's bulk replay (docs/dashboard.md#bulk-replay, the API's docs/ledger.md#bulk-replay-by-filter):
 * the deliveries list with a filter links "Replay all that match…" to
 *
 *   GET  /deliveries/replay?<the list's filters>  → the preview: the count, the oldest ids, a Replay N form
 *   POST /deliveries/replay (filter, confirm, _csrf) → 303 → GET /deliveries/replay?result=<id>: what was replayed
 *
 * The form carries the preview's filter as the API reads it (`since` an ISO time, fixed at the preview) and its
 * `confirm`; the host's CSRF check covers the POST as every form's. A form sent twice replays once (the API
 * answers the same confirmation again with `repeated`), and the result page can be reloaded. Where the host
 * hands over no POST (OpenClaw's frame) the preview shows the CLI command instead.
 */
import type { Request, Response, Router } from "express";
import { HookError } from "../core/errors";
import { BULK_FILTER_PARAMS, type BulkReplayFilter, type BulkReplayPreview, type BulkReplayResult } from "../core/bulk-replay";
import type { HookInspector } from "../core/inspection";
import type { HostLogger } from "../host-contract/host-api";
import { CSRF_FIELD } from "../host-contract/csrf";
import { html, type SafeHtml } from "../host-contract/html";
import { shellQuote } from "../host-contract/shell-quote";
import { parseDeliveryFilters } from "./delivery-filters";
import { createFormResults } from "./form-results";
import { sendUiError } from "./ui-error";

export interface BulkReplayPagesOptions {
  inspector: HookInspector;
  now: () => number;
  logger: HostLogger;
  /** Renders a page of the Deliveries section (ui-pages.ts). */
  page: (res: Response, title: string, content: SafeHtml) => void;
}

const deliveryLink = (base: string, id: string) => html`<a href="${base}/deliveries/${encodeURIComponent(id)}"><code>${id}</code></a>`;
const bulkFilterText = (f: BulkReplayFilter) =>
  Object.entries(f)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");

function previewContent(p: BulkReplayPreview, base: string, csrf: string | undefined, command: string | undefined): SafeHtml {
  const others =
    p.notReplayable > 0
      ? html`<p class="muted" id="bulk-not-replayable">${p.notReplayable} more match but are not replayed: replays, deliveries refused before authentication, deliveries stored without their body.</p>`
      : "";
  const more = p.count > p.ids.length ? html`<li>… and ${p.count - p.ids.length} more</li>` : "";
  const head = html`<h2>Replay all that match</h2>
<p id="bulk-preview">Filter: ${bulkFilterText(p.filter)}. <strong id="bulk-count">${p.count}</strong> ${p.count === 1 ? "delivery" : "deliveries"} received up to ${p.until} ${p.count === 1 ? "matches" : "match"}; each is replayed once, oldest first, through today's mappings (signatures are not re-checked).</p>
${others}`;
  if (p.count === 0) return html`${head}<p id="bulk-nothing">Nothing to replay. <a href="${base}/deliveries">Back to the deliveries</a></p>`;
  const list = html`<ol id="bulk-ids">${p.ids.map((id) => html`<li>${deliveryLink(base, id)}</li>`)}${more}</ol>`;
  if (command !== undefined)
    return html`${head}${list}<p id="replay-command">This view is read-only here: replay them from a shell where the gateway runs.</p>
<pre class="text" data-copy="Copy the command">${command}</pre>`;
  const hidden = [...Object.entries(p.filter), ["confirm", p.confirm]].map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  return html`${head}${list}<form method="post" action="${base}/deliveries/replay" id="bulk-form">
${csrf ? html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">` : ""}${hidden}
<button type="submit">Replay ${p.count} ${p.count === 1 ? "delivery" : "deliveries"}</button> <a href="${base}/deliveries">Cancel</a> <span class="muted">The preview is valid until ${p.expiresAt}.</span>
</form>`;
}

function resultContent(r: BulkReplayResult, base: string): SafeHtml {
  const rows = r.replayed.map(
    (i) =>
      html`<tr><td>${deliveryLink(base, i.replayOf)}</td><td>${i.deliveryId ? deliveryLink(base, i.deliveryId) : "not replayed"}</td><td><span class="status s${String(i.status).charAt(0)}xx">${i.status}</span> ${i.code ?? ""}</td></tr>`,
  );
  return html`<h2>Replay all that match</h2>
<p id="bulk-result" role="status" class="${r.failed > 0 ? "error" : "ok"}">Replayed ${r.count} ${r.count === 1 ? "delivery" : "deliveries"} (${bulkFilterText(r.filter)})${r.failed > 0 ? html`; ${r.failed} answered with an error` : ""}.</p>
<table class="reflow" id="bulk-replayed"><thead><tr><th scope="col">Delivery</th><th scope="col">Its replay</th><th scope="col">Answer</th></tr></thead><tbody>
${rows}
</tbody></table>
<p><a href="${base}/deliveries">Back to the deliveries</a></p>`;
}

/** The filter of the form as the API reads it (strings; anything else left out). */
function formFilter(body: Record<string, unknown>): BulkReplayFilter {
  const f: BulkReplayFilter = {};
  for (const k of BULK_FILTER_PARAMS) if (typeof body[k] === "string" && body[k] !== "") f[k] = body[k];
  return f;
}

export function mountBulkReplayPages(router: Router, opts: BulkReplayPagesOptions): void {
  const results = createFormResults<{ result?: BulkReplayResult; error?: string }>({ now: opts.now, size: (v) => JSON.stringify(v).length });
  const refused = (req: Request, res: Response, e: unknown) => {
    if (!(e instanceof HookError)) throw e;
    sendUiError(req, res, e.status, e.code, e.message);
  };

  router.get("/deliveries/replay", async (req, res) => {
    const { inspector } = opts;
    const base = res.locals.base;
    if (req.query.result !== undefined) {
      const kept = results.get(res.locals.context.operator.id, req.query.result);
      if (!kept?.result)
        return sendUiError(
          req,
          res,
          404,
          "not_found",
          "This bulk replay's result is no longer kept (results are kept 15 minutes); its replays are in the list.",
        );
      return opts.page(res, "Bulk replay", resultContent(kept.result, base));
    }
    const f = parseDeliveryFilters(req.query as Record<string, unknown>, opts.now());
    if (f.problem) return sendUiError(req, res, 400, "invalid_filter", f.problem);
    const filter: BulkReplayFilter = {};
    for (const k of BULK_FILTER_PARAMS) if (f.query[k] !== undefined) filter[k] = f.query[k];
    if (!inspector.previewBulkReplay) return sendUiError(req, res, 404, "not_found", "This plugin offers no bulk replay.");
    let preview: BulkReplayPreview;
    try {
      preview = await inspector.previewBulkReplay(filter);
    } catch (e) {
      return refused(req, res, e);
    }
    const ctx = res.locals.context;
    const flags = Object.entries(preview.filter).map(([k, v]) => `--${k} ${shellQuote(v)}`);
    const command = ctx.operator.canWrite ? undefined : `${ctx.cli ?? "gateway webhooks"} deliveries replay ${flags.join(" ")}`;
    opts.page(res, "Bulk replay", previewContent(preview, base, ctx.operator.csrf, command));
  });

  // POST → 303 → GET, like the single replay: the result page can be reloaded without replaying again.
  router.post("/deliveries/replay", async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const filter = formFilter(body);
    const confirm = typeof body.confirm === "string" ? body.confirm : "";
    if (!opts.inspector.bulkReplay) return sendUiError(req, res, 404, "not_found", "This plugin offers no bulk replay.");
    let result: BulkReplayResult;
    try {
      result = await opts.inspector.bulkReplay(filter, confirm);
    } catch (e) {
      return refused(req, res, e);
    }
    opts.logger.info("dashboard bulk replay", { count: result.count, failed: result.failed, repeated: result.repeated });
    const key = results.put(res.locals.context.operator.id, { result });
    res.redirect(303, `${res.locals.base}/deliveries/replay?result=${key}#bulk-result`);
  });
}
