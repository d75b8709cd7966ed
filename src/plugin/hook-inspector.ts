/**
 * The plugin's HookInspector (src/core/inspection.ts): what
 * the host's operator surfaces (`/ui`, `/api/status`) read — deliveries, runs,
 * mappings, dry runs, replays and a summary — without knowing the store or the
 * routes. Created at activation; it reads through the runtime once the runs service
 * has started it, and reports an empty ledger before that.
 *
 * Everything it returns is already redacted (the ledger stores headers redacted;
 * mappings are described without secrets).
 */
import type { HooksConfig } from "../config/types";
import type { HostRuntime } from "../host-contract/host-api";
import type { DeliverySummary, DryRunView, HookInspector, HooksSummary, MappingSummary, RunSummary } from "../core/inspection";
import { dryRunHook } from "../intake/dry-run";
import { HookError, hookErrors } from "../core/errors";
import { flatQuery } from "../intake/request-input";
import { formatDryRun } from "../mappings/dry-run-report";
import type { MappingDescription, MappingEngine } from "../mappings/engine";
import type { LedgerAccess } from "../intake/ledger";
import { parseDeliveryQuery, parseRunQuery } from "../intake/ledger/ledger-query";
import type { RunView } from "../core/runs";
import type { PluginEmitter } from "../core/events";

export interface HookInspectorDeps {
  config: HooksConfig;
  runtime: HostRuntime;
  mappings: MappingEngine;
  /** The started runtime's ledger; undefined before the runs service started (or after it stopped). */
  ledger: () => LedgerAccess | undefined;
  /** ms since the epoch; default Date.now. */
  clock?: () => number;
  /** The plugin's events: `run:started` / `run:finished` feed `subscribeRuns`. */
  events?: Pick<PluginEmitter, "on" | "off">;
}

const HOUR_MS = 3_600_000;

function origin(m: MappingDescription): string {
  return m.origin.kind === "config"
    ? "config"
    : m.origin.pluginId === "inbound-webhooks"
      ? `preset:${m.origin.preset}`
      : `plugin:${m.origin.pluginId}/${m.origin.preset}`;
}

function matchRules(m: MappingDescription): string[] {
  const rules: string[] = [];
  if (m.match.path !== undefined) rules.push(`path ${m.match.path}`);
  if (m.match.source !== undefined) rules.push(`source ${m.match.source}`);
  for (const [header, values] of Object.entries(m.match.headers ?? {})) rules.push(`header ${header}=${values.join("|")}`);
  return rules.length > 0 ? rules : ["any request"];
}

/** A string query turned into the checked one; a bad value throws (the host shows the sentence). */
function stringQuery(q: object): Record<string, string> {
  return Object.fromEntries(Object.entries(q).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
}

/** The inspector, and the feed of new ledger rows its subscribers get (the runtime's ledger publishes into it). */
export interface PluginInspector {
  inspector: HookInspector;
  /** Called with each row the ledger wrote. */
  publish(delivery: DeliverySummary): void;
  /** True while the host has a subscriber (the ledger builds no summary for nobody). */
  listening(): boolean;
}

export function createHookInspector(deps: HookInspectorDeps): PluginInspector {
  const clock = deps.clock ?? Date.now;
  const listeners = new Set<(d: DeliverySummary) => void>();
  const withRun = (ledger: LedgerAccess, run: RunView): RunSummary => {
    const deliveryId = ledger.store.deliveryOfRun(run.id);
    return { ...run, ...(deliveryId ? { deliveryId } : {}) };
  };

  const inspector: HookInspector = {
    listDeliveries(query) {
      const ledger = deps.ledger();
      const q = parseDeliveryQuery(stringQuery(query));
      if (!q.ok) throw q.error;
      return ledger?.store.list(q.value) ?? [];
    },
    getDelivery(id) {
      const found = deps.ledger()?.store.get(id);
      if (!found) return undefined;
      const { rawBody: _raw, bodyStored: _stored, ...delivery } = found;
      return delivery;
    },
    async replay(id) {
      const ledger = deps.ledger();
      if (!ledger) return undefined;
      let r;
      try {
        r = await ledger.replay(id, "inspector");
      } catch (e) {
        // The replay's own read found no such delivery (one read, whatever the store).
        if (e instanceof HookError && e.code === "delivery_not_found") return undefined;
        throw e;
      }
      return { deliveryId: r.deliveryId, status: r.response.status, body: r.response.body };
    },
    async previewBulkReplay(filter) {
      const ledger = deps.ledger();
      if (!ledger) throw hookErrors.ledgerUnreadable();
      return ledger.bulkReplay.preview(stringQuery(filter));
    },
    async bulkReplay(filter, confirm) {
      const ledger = deps.ledger();
      if (!ledger) throw hookErrors.ledgerUnreadable();
      return ledger.bulkReplay.replay({ ...stringQuery(filter), confirm }, "inspector");
    },
    listRuns(query) {
      const ledger = deps.ledger();
      const q = parseRunQuery(stringQuery(query));
      if (!q.ok) throw q.error;
      return ledger ? ledger.runs.list(q.value).map((r) => withRun(ledger, r)) : [];
    },
    getRun(id) {
      const ledger = deps.ledger();
      const run = ledger?.runs.get(id);
      return ledger && run ? withRun(ledger, run) : undefined;
    },
    mappings() {
      const verified = new Map(deps.mappings.verifications().map((v) => [v.path, v.config.scheme]));
      return deps.mappings.describe().map((m): MappingSummary => {
        const scheme = m.match.path !== undefined ? verified.get(m.match.path) : undefined;
        return {
          id: m.id,
          origin: origin(m),
          match: matchRules(m),
          action: m.action,
          ...(scheme ? { verify: scheme } : {}),
          ...(m.shadowedBy ? { shadowedBy: m.shadowedBy } : {}),
        };
      });
    },
    async dryRun(input): Promise<DryRunView> {
      const headers = Object.fromEntries(Object.entries(input.headers).map(([k, v]) => [k.toLowerCase(), v]));
      // A stored delivery's query is read as its live request's was (src/intake/io/request-input.ts).
      const query = input.url !== undefined ? flatQuery(input.url) : {};
      const r = await dryRunHook(
        { name: input.hook, body: Buffer.from(input.body, "utf8"), headers, query },
        { config: deps.config, runtime: deps.runtime, mappings: deps.mappings },
      );
      if (!r.ok) return { ok: false, lines: [r.error.message, ...r.error.lines] };
      const report = r.value;
      return {
        ok: true,
        lines: formatDryRun(report).trimEnd().split("\n"),
        mappingId: report.mapping.id,
        ...(report.outcome === "action" ? { action: { ...report.action } as Record<string, unknown> } : {}),
      };
    },
    summary(): HooksSummary {
      const ledger = deps.ledger();
      if (!ledger) return { queued: 0, running: 0, failedLastHour: 0, ledgerEntries: 0 };
      const counts = ledger.runs.counts(clock() - HOUR_MS);
      const last = ledger.store.lastReceivedAt();
      return {
        ...(last !== undefined ? { lastDeliveryAt: new Date(last).toISOString() } : {}),
        queued: counts.queued,
        running: counts.running,
        failedLastHour: counts.failedSince,
        ledgerEntries: ledger.store.count(),
      };
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
  const events = deps.events;
  if (events) {
    inspector.subscribeRuns = (listener) => {
      // Read back from the store, so the listener sees the run as recorded (status, times, summary).
      const changed = (e: { runId: string }) => {
        const run = inspector.getRun(e.runId);
        if (run) listener(run);
      };
      events.on("run:started", changed);
      events.on("run:finished", changed);
      return () => {
        events.off("run:started", changed);
        events.off("run:finished", changed);
      };
    };
  }
  return {
    inspector,
    publish(delivery) {
      for (const l of [...listeners]) l(delivery);
    },
    listening: () => listeners.size > 0,
  };
}
