/**
 * The dashboard's pages and its live feed, behind the login of ui-router.ts:
 * Deliveries (filters + live SSE), one delivery (with Replay), Mappings (with the
 * dry-run form) and Overview. The data comes from the first plugin that
 * registered an inspector (discovery order: `plugins.paths`, installed, built-in);
 * without one, every page says so.
 */
import type { Response, Router } from "express";
import type { HostLogger } from "../../host-contract/host-api";
import { isReplayRefusal, type DryRunView, type HookInspector } from "../../host-contract/inspection";
import { parseDeliveryFilters, PAGE_SIZE } from "./delivery-filters";
import type { JournalEntry } from "../journal/journal";
import { createFormResults } from "./form-results";
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
import type { UiSessionStore } from "./ui-sessions";
import { resumeId } from "./feed-resume";

/** The overview's time window and how many rows it reads at most. */
const OVERVIEW_MINUTES = 60;
const OVERVIEW_SAMPLE = 500;
const MAX_HOOK_CHARS = 200;

export interface PagesOptions {
  inspectors: ReadonlyArray<{ pluginId: string; inspector: HookInspector }>;
  feed: LiveFeed;
  now: () => number;
  logger: HostLogger;
  /** The login sessions: a live feed of a cookie session ends when its session does. */
  sessions: UiSessionStore;
  /** The newest journal entries (the gateway reads the end of journal.jsonl); absent: no journal effects shown. */
  journal?: () => readonly JournalEntry[];
}

/** Whose form results these are: the cookie session's, or the Bearer token holder's. */
function ownerOf(res: Response): string {
  const p = res.locals.principal;
  return p?.kind === "session" ? `session:${p.session.id}` : "bearer";
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
    page(res, "deliveries", "Deliveries", renderDeliveriesContent(f, rows, PAGE_SIZE, opts.now()), { scripts: ["deliveries.js"] });
  });

  router.get("/api/events", (req, res) => {
    const f = parseDeliveryFilters(req.query as Record<string, unknown>, opts.now());
    if (f.problem) return sendUiError(req, res, 400, "invalid_filter", f.problem);
    const after = resumeId(req);
    if (typeof after === "object") return sendUiError(req, res, 400, "invalid_filter", after.problem);
    const p = res.locals.principal;
    // A logged-out or expired session's feed ends at its next event or keep-alive (Bearer: the token cannot change).
    const allowed = p?.kind === "session" ? () => opts.sessions.get(p.session.id) !== undefined : () => true;
    opts.feed.stream(req, res, inspector, f.query, allowed, after);
  });

  const replays = createFormResults<{ of: string } & NonNullable<DeliveryPageData["replay"]>>({ now: opts.now, size: (v) => JSON.stringify(v).length });
  const dryRuns = createFormResults<{ form: DryRunForm; result: DryRunView }>({ now: opts.now, size: (v) => v.form.body.length + v.form.headers.length + JSON.stringify(v.result).length });

  router.get("/deliveries/:id", async (req, res) => {
    const id = String(req.params.id);
    const delivery = inspector.getDelivery(id);
    if (!delivery) return sendUiError(req, res, 404, "not_found", "No delivery has this id (it may have been pruned).");
    const runs = delivery.runIds.map((r) => ({ id: r, run: inspector.getRun(r) }));
    const data: DeliveryPageData = { delivery, runs, csrf: csrfOf(res), origin: `${req.protocol}://${req.get("host") ?? "127.0.0.1"}` };
    if (req.query.result !== undefined) {
      const kept = replays.get(ownerOf(res), req.query.result);
      data.replay = kept?.of === id ? kept : { error: "This replay's result is no longer kept (results are kept 15 minutes); its delivery is in the list." };
    }
    if (opts.journal) data.effects = journalEffects(delivery, runs.map((r) => r.run), opts.journal());
    if (delivery.hook === undefined) data.dryRunNote = "The request named no hook.";
    else if (delivery.body === undefined && delivery.bodyBase64 !== undefined) data.dryRunNote = "The body is not UTF-8 text (it is stored as base64, shown above), and the dry run takes text; replay the delivery to run it as received.";
    else if (delivery.body === undefined) data.dryRunNote = "The body was not stored, so there is nothing to dry-run.";
    else data.dryRun = await inspector.dryRun({ hook: delivery.hook, body: delivery.body, headers: delivery.headers, url: delivery.url });
    page(res, "deliveries", `Delivery ${delivery.id}`, renderDeliveryContent(data), { scripts: ["delivery.js"] });
  });
  // POST → 303 → GET: the page after a replay can be reloaded without replaying again.
  router.post("/deliveries/:id/replay", async (req, res) => {
    const id = String(req.params.id);
    let outcome: NonNullable<DeliveryPageData["replay"]>;
    try {
      const result = await inspector.replay(id);
      if (!result) return sendUiError(req, res, 404, "not_found", "No delivery has this id (it may have been pruned).");
      opts.logger.info("dashboard replay", { deliveryId: id, newDeliveryId: result.deliveryId, status: result.status });
      outcome = { result };
    } catch (e) {
      if (isReplayRefusal(e)) {
        // The plugin says why it will not replay this one (refused at authentication, no body stored): the operator's answer, not a failure.
        opts.logger.info("dashboard replay refused", { deliveryId: id, code: e.code });
        outcome = { error: `${e.message} (${e.code})` };
      } else {
        opts.logger.error("dashboard replay failed", { deliveryId: id, error: (e as Error)?.message ?? String(e) });
        outcome = { error: "The replay failed; the gateway log has the reason." };
      }
    }
    const key = replays.put(ownerOf(res), { of: id, ...outcome });
    res.redirect(303, `/ui/deliveries/${encodeURIComponent(id)}?result=${key}#replay-result`);
  });

  router.get("/mappings", (req, res) => {
    const kept = req.query.result === undefined ? undefined : dryRuns.get(ownerOf(res), req.query.result);
    const gone = req.query.result !== undefined && !kept ? { problem: "This dry run's result is no longer kept (results are kept 15 minutes); run it again." } : {};
    page(res, "mappings", "Mappings", renderMappingsContent({ mappings: inspector.mappings(), csrf: csrfOf(res), ...(kept ?? {}), ...gone }));
  });
  router.post("/mappings/dry-run", async (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const form: DryRunForm = { hook: typeof b.hook === "string" ? b.hook.trim() : "", headers: typeof b.headers === "string" ? b.headers : "", body: typeof b.body === "string" ? b.body : "" };
    // A refused form is answered at once (400, nothing was done); a verdict goes POST → 303 → GET.
    const refuse = (problem: string) => {
      res.status(400);
      page(res, "mappings", "Mappings", renderMappingsContent({ mappings: inspector.mappings(), csrf: csrfOf(res), form, problem }));
    };
    if (!form.hook || form.hook.length > MAX_HOOK_CHARS) return refuse(`hook is required and must be at most ${MAX_HOOK_CHARS} characters.`);
    const headers = parseHeaderLines(form.headers);
    if (!headers.ok) return refuse(headers.problem);
    const result = await inspector.dryRun({ hook: form.hook, body: form.body, headers: headers.headers });
    res.redirect(303, `/ui/mappings?result=${dryRuns.put(ownerOf(res), { form, result })}#dry-run-result`);
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
