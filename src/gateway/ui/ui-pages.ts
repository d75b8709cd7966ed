/**
 * The dashboard's pages and its live feed, behind the login of ui-router.ts:
 * Deliveries (filters + live SSE), one delivery (with Replay), Mappings (with the
 * dry-run form) and Overview. The data comes from the first plugin that
 * registered an inspector (discovery order: `plugins.paths`, installed, built-in);
 * without one, every page says so.
 */
import type { Request, Response, Router } from "express";
import type { HostLogger } from "../../host-contract/host-api";
import type { HookInspector, ReplayResult } from "../../host-contract/inspection";
import { parseDeliveryFilters, PAGE_SIZE } from "./delivery-filters";
import type { JournalEntry } from "../journal/journal";
import { html, type SafeHtml } from "./html";
import { journalEffects } from "./journal-effects";
import type { LiveFeed } from "./live-feed";
import { overviewSeries, runsByOutcome } from "./overview-stats";
import { sendUiError } from "./ui-error";
import { renderDeliveriesContent } from "./views/deliveries-view";
import { deliveryRow } from "./views/delivery-row";
import { renderDeliveryContent, type DeliveryPageData } from "./views/delivery-view";
import { renderPage, type PageFrame, type UiSection } from "./views/layout";
import { parseHeaderLines, renderMappingsContent, type DryRunForm } from "./views/mappings-view";
import { renderOverviewContent } from "./views/overview-view";

/** The overview's time window and how many rows it reads at most. */
const OVERVIEW_MINUTES = 60;
const OVERVIEW_SAMPLE = 500;
const MAX_HOOK_CHARS = 200;

export interface PagesOptions {
  inspectors: ReadonlyArray<{ pluginId: string; inspector: HookInspector }>;
  feed: LiveFeed;
  now: () => number;
  logger: HostLogger;
  /** The newest journal entries (the gateway reads the end of journal.jsonl); absent: no journal effects shown. */
  journal?: () => readonly JournalEntry[];
}

function csrfOf(res: Response): string | undefined {
  const p = res.locals.principal;
  return p?.kind === "session" ? p.session.csrf : undefined;
}

export function mountPages(router: Router, opts: PagesOptions): void {
  const source = opts.inspectors[0];
  const page = (res: Response, section: UiSection, title: string, content: SafeHtml, extra: Partial<PageFrame> = {}) => {
    res.type("html").send(renderPage({ title, section, content, csrf: csrfOf(res), ...(source ? { source: source.pluginId } : {}), ...extra }));
  };

  router.get("/", (_req, res) => res.redirect(303, "/ui/deliveries"));

  if (!source) {
    router.get(["/deliveries", "/deliveries/:id", "/mappings", "/overview"], (_req, res) =>
      page(res, "deliveries", "No delivery data", html`<p id="no-inspector">No plugin registered an inspector, so there are no deliveries, runs or mappings to show. Enable the inbound-webhooks plugin (<code>gateway plugins list</code>) with <code>hooks.enabled: true</code>.</p>`),
    );
    router.use("/api", (req, res) => sendUiError(req, res, 404, "no_inspector", "No plugin registered an inspector."));
    return;
  }
  const inspector = source.inspector;
  const runStatus = (id: string) => inspector.getRun(id)?.status;

  router.get("/deliveries", (req, res) => {
    const f = parseDeliveryFilters(req.query as Record<string, unknown>, opts.now());
    const rows = inspector.listDeliveries(f.query).map((d) => deliveryRow(d, runStatus));
    page(res, "deliveries", "Deliveries", renderDeliveriesContent(f, rows, PAGE_SIZE), { scripts: ["deliveries.js"] });
  });

  router.get("/api/events", (req, res) => {
    const f = parseDeliveryFilters(req.query as Record<string, unknown>, opts.now());
    if (f.problem) return sendUiError(req, res, 400, "invalid_filter", f.problem);
    opts.feed.stream(req, res, inspector, f.query);
  });

  const deliveryPage = async (req: Request, res: Response, replay?: DeliveryPageData["replay"]) => {
    const id = String(req.params.id);
    const delivery = inspector.getDelivery(id);
    if (!delivery) return sendUiError(req, res, 404, "not_found", "No delivery has this id (it may have been pruned).");
    const runs = delivery.runIds.map((r) => ({ id: r, run: inspector.getRun(r) }));
    const data: DeliveryPageData = { delivery, runs, csrf: csrfOf(res), ...(replay ? { replay } : {}) };
    if (opts.journal) data.effects = journalEffects(delivery, runs.map((r) => r.run), opts.journal());
    if (delivery.hook === undefined) data.dryRunNote = "The request named no hook.";
    else if (delivery.body === undefined) data.dryRunNote = "The body was not stored, so there is nothing to dry-run.";
    else data.dryRun = await inspector.dryRun({ hook: delivery.hook, body: delivery.body, headers: delivery.headers });
    page(res, "deliveries", `Delivery ${delivery.id}`, renderDeliveryContent(data));
  };
  router.get("/deliveries/:id", (req, res) => deliveryPage(req, res));
  router.post("/deliveries/:id/replay", async (req, res) => {
    const id = String(req.params.id);
    let result: ReplayResult | undefined;
    try {
      result = await inspector.replay(id);
    } catch (e) {
      opts.logger.error("dashboard replay failed", { deliveryId: id, error: (e as Error)?.message ?? String(e) });
      return deliveryPage(req, res, { error: "The replay failed; the gateway log has the reason." });
    }
    if (!result) return sendUiError(req, res, 404, "not_found", "No delivery has this id (it may have been pruned).");
    opts.logger.info("dashboard replay", { deliveryId: id, newDeliveryId: result.deliveryId, status: result.status });
    return deliveryPage(req, res, { result });
  });

  router.get("/mappings", (_req, res) => {
    page(res, "mappings", "Mappings", renderMappingsContent({ mappings: inspector.mappings(), csrf: csrfOf(res) }));
  });
  router.post("/mappings/dry-run", async (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const form: DryRunForm = { hook: typeof b.hook === "string" ? b.hook.trim() : "", headers: typeof b.headers === "string" ? b.headers : "", body: typeof b.body === "string" ? b.body : "" };
    const show = (status: number, extra: { problem?: string; result?: Awaited<ReturnType<HookInspector["dryRun"]>> }) => {
      res.status(status);
      page(res, "mappings", "Mappings", renderMappingsContent({ mappings: inspector.mappings(), csrf: csrfOf(res), form, ...extra }));
    };
    if (!form.hook || form.hook.length > MAX_HOOK_CHARS) return show(400, { problem: `hook is required and must be at most ${MAX_HOOK_CHARS} characters.` });
    const headers = parseHeaderLines(form.headers);
    if (!headers.ok) return show(400, { problem: headers.problem });
    show(200, { result: await inspector.dryRun({ hook: form.hook, body: form.body, headers: headers.headers }) });
  });

  router.get("/overview", (_req, res) => {
    const now = opts.now();
    const since = new Date(now - OVERVIEW_MINUTES * 60_000).toISOString();
    const deliveries = inspector.listDeliveries({ limit: OVERVIEW_SAMPLE, since });
    const runs = inspector.listRuns({ limit: OVERVIEW_SAMPLE });
    const content = renderOverviewContent({
      summary: inspector.summary(),
      series: overviewSeries(deliveries, now, OVERVIEW_MINUTES),
      runs: runsByOutcome(runs),
      runsSampled: runs.length,
      minutes: OVERVIEW_MINUTES,
    });
    page(res, "overview", "Overview", content, { scripts: ["uPlot.iife.min.js", "overview.js"], styles: ["uPlot.min.css"] });
  });
}
