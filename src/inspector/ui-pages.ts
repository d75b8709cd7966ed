/**
 * The inspector's pages and its live feed, behind the operator login of the host (inspector-route.ts mounts
 * them; `res.locals.context` is what the host said of the request): Deliveries (filters + live SSE), one
 * delivery (with Replay), Mappings (with the dry-run form) and Overview. Where the host hands over GET and HEAD
 * only (`operator.canWrite` false: OpenClaw's frame), Replay and the dry-run form are the CLI commands that do
 * the same, and a POST is refused (405).
 */
import type { Response, Router } from "express";
import type { HostLogger } from "../host-contract/host-api";
import { isReplayRefusal, type DryRunView, type HookInspector } from "../core/inspection";
import { parseDeliveryFilters, PAGE_SIZE } from "./delivery-filters";
import type { OperatorRouteContext } from "../host-contract/operator-route";
import { shellQuote } from "../host-contract/shell-quote";
import { createFormResults } from "./form-results";
import { html, type SafeHtml } from "../host-contract/html";
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
import { resumeId } from "./feed-resume";
import { mountBulkReplayPages } from "./bulk-replay-pages";

/** The overview's time window and how many rows it reads at most. */
const OVERVIEW_MINUTES = 60;
const OVERVIEW_SAMPLE = 500;
const MAX_HOOK_CHARS = 200;

export interface PagesOptions {
  inspector: HookInspector;
  /** The plugin whose inspector the pages show (named in their header). */
  pluginId: string;
  feed: LiveFeed;
  now: () => number;
  logger: HostLogger;
}

declare module "express-serve-static-core" {
  interface Locals {
    /** What the host said of the request (inspector-route.ts sets it). */
    context: OperatorRouteContext;
    /** `context.base`, for the refusals (ui-error.ts). */
    base: string;
  }
}

/** Whose form results these are: the login's (a cookie session's, the Bearer token holder's). */
function ownerOf(res: Response): string {
  return res.locals.context.operator.id;
}

function csrfOf(res: Response): string | undefined {
  return res.locals.context.operator.csrf;
}

/** The command that does what a form would, where the host hands over no POST (`cli` is the host's prefix of the plugin's commands). */
function readOnlyCommand(res: Response, command: string): string | undefined {
  const ctx = res.locals.context;
  return ctx.operator.canWrite ? undefined : `${ctx.cli ?? "gateway webhooks"} ${command}`;
}

export function mountPages(router: Router, opts: PagesOptions): void {
  const page = (res: Response, section: UiSection, title: string, content: SafeHtml, extra: Partial<PageFrame> = {}) => {
    const ctx = res.locals.context;
    res.type("html").send(
      renderPage({
        title,
        section,
        content,
        base: ctx.base,
        ...(ctx.operator.csrf ? { csrf: ctx.operator.csrf } : {}),
        ...(ctx.operator.logoutPath ? { logoutPath: ctx.operator.logoutPath } : {}),
        source: opts.pluginId,
        ...(ctx.assetsBase ? { assetsBase: ctx.assetsBase } : {}),
        ...extra,
      }),
    );
  };

  router.get("/", (_req, res) => res.redirect(303, `${res.locals.base}/deliveries`));

  // A host whose operator grant is read-only (OpenClaw's frame) hands over no POST; one that does gets a clear refusal.
  router.use((req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD" || res.locals.context.operator.canWrite) return next();
    res.setHeader("Allow", "GET, HEAD");
    sendUiError(req, res, 405, "method_not_allowed", "This host's dashboard is read-only; replay and dry run with the CLI command the page shows.");
  });
  const inspector = opts.inspector;
  const runStatus = (id: string) => inspector.getRun(id)?.status;

  router.get("/deliveries", (req, res) => {
    const f = parseDeliveryFilters(req.query as Record<string, unknown>, opts.now());
    const ctx = res.locals.context;
    const rows = inspector.listDeliveries(f.query).map((d) => deliveryRow(d, runStatus, ctx.base));
    const hostPaths = {
      base: ctx.base,
      ...(ctx.operator.loginPath ? { loginPath: ctx.operator.loginPath } : {}),
      ...(ctx.operator.sessionCheckPath ? { sessionCheckPath: ctx.operator.sessionCheckPath } : {}),
      ...(ctx.liveFeedBase ? { liveFeedBase: ctx.liveFeedBase } : {}),
    };
    page(res, "deliveries", "Deliveries", renderDeliveriesContent(f, rows, PAGE_SIZE, opts.now(), hostPaths), { scripts: ["deliveries.js"] });
  });

  router.get("/api/events", (req, res) => {
    const f = parseDeliveryFilters(req.query as Record<string, unknown>, opts.now());
    if (f.problem) return sendUiError(req, res, 400, "invalid_filter", f.problem);
    const after = resumeId(req);
    if (typeof after === "object") return sendUiError(req, res, 400, "invalid_filter", after.problem);
    // A logged-out or expired session's feed ends at its next event or keep-alive (Bearer: the token cannot change).
    const operator = res.locals.context.operator;
    opts.feed.stream(req, res, inspector, f.query, () => operator.active(), after, res.locals.base);
  });

  const replays = createFormResults<{ of: string } & NonNullable<DeliveryPageData["replay"]>>({ now: opts.now, size: (v) => JSON.stringify(v).length });
  const dryRuns = createFormResults<{ form: DryRunForm; result: DryRunView }>({
    now: opts.now,
    size: (v) => v.form.body.length + v.form.headers.length + JSON.stringify(v.result).length,
  });

  // Before /deliveries/:id: "replay" is no delivery id.
  mountBulkReplayPages(router, { inspector, now: opts.now, logger: opts.logger, page: (res, title, content) => page(res, "deliveries", title, content) });

  router.get("/deliveries/:id", async (req, res) => {
    const id = String(req.params.id);
    const delivery = inspector.getDelivery(id);
    if (!delivery) return sendUiError(req, res, 404, "not_found", "No delivery has this id (it may have been pruned).");
    const runs = delivery.runIds.map((r) => ({ id: r, run: inspector.getRun(r) }));
    // Where the host serves the route's methods (OpenClaw's gateway methods), the command that replays through the running host.
    const viaHost = res.locals.context.operator.canWrite ? undefined : res.locals.context.methodCommand?.("deliveries.replay", { id });
    const replayCommand = viaHost ?? readOnlyCommand(res, `deliveries replay ${shellQuote(id)}`);
    const data: DeliveryPageData = {
      delivery,
      runs,
      csrf: csrfOf(res),
      origin: `${req.protocol}://${req.get("host") ?? "127.0.0.1"}`,
      base: res.locals.base,
      ...(replayCommand !== undefined ? { replayCommand } : {}),
    };
    if (req.query.result !== undefined) {
      const kept = replays.get(ownerOf(res), req.query.result);
      data.replay = kept?.of === id ? kept : { error: "This replay's result is no longer kept (results are kept 15 minutes); its delivery is in the list." };
    }
    const journal = res.locals.context.journal;
    if (journal)
      data.effects = journalEffects(
        delivery,
        runs.map((r) => r.run),
        journal(),
      );
    if (delivery.hook === undefined) data.dryRunNote = "The request named no hook.";
    else if (delivery.body === undefined && delivery.bodyBase64 !== undefined)
      data.dryRunNote =
        "The body is not UTF-8 text (it is stored as base64, shown above), and the dry run takes text; replay the delivery to run it as received.";
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
    res.redirect(303, `${res.locals.base}/deliveries/${encodeURIComponent(id)}?result=${key}#replay-result`);
  });

  router.get("/mappings", (req, res) => {
    const kept = req.query.result === undefined ? undefined : dryRuns.get(ownerOf(res), req.query.result);
    const gone =
      req.query.result !== undefined && !kept ? { problem: "This dry run's result is no longer kept (results are kept 15 minutes); run it again." } : {};
    const dryRunCommand = readOnlyCommand(res, "test <hook> --payload <file.json> --header 'content-type: application/json'");
    page(
      res,
      "mappings",
      "Mappings",
      renderMappingsContent({
        mappings: inspector.mappings(),
        csrf: csrfOf(res),
        base: res.locals.base,
        ...(dryRunCommand !== undefined ? { dryRunCommand } : {}),
        ...(kept ?? {}),
        ...gone,
      }),
    );
  });
  router.post("/mappings/dry-run", async (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const form: DryRunForm = {
      hook: typeof b.hook === "string" ? b.hook.trim() : "",
      headers: typeof b.headers === "string" ? b.headers : "",
      body: typeof b.body === "string" ? b.body : "",
    };
    // A refused form is answered at once (400, nothing was done); a verdict goes POST → 303 → GET.
    const refuse = (problem: string) => {
      res.status(400);
      page(res, "mappings", "Mappings", renderMappingsContent({ mappings: inspector.mappings(), csrf: csrfOf(res), base: res.locals.base, form, problem }));
    };
    if (!form.hook || form.hook.length > MAX_HOOK_CHARS) return refuse(`hook is required and must be at most ${MAX_HOOK_CHARS} characters.`);
    const headers = parseHeaderLines(form.headers);
    if (!headers.ok) return refuse(headers.problem);
    const result = await inspector.dryRun({ hook: form.hook, body: form.body, headers: headers.headers });
    res.redirect(303, `${res.locals.base}/mappings?result=${dryRuns.put(ownerOf(res), { form, result })}#dry-run-result`);
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
