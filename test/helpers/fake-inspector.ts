/**
 * An in-memory HookInspector for the dashboard's HTTP tests: deliveries and runs
 * are what the test adds; `emit` announces a new delivery to subscribers (as the
 * real ledger does when it records a row); replays are recorded in `replayed`.
 */
import type { DeliveryDetail, DeliverySummary, DryRunInput, HookInspector, MappingSummary, ReplayResult, RunSummary } from "../../src/core/inspection";

export interface FakeInspector extends HookInspector {
  deliveries: DeliveryDetail[];
  runs: RunSummary[];
  mappingList: MappingSummary[];
  replayed: string[];
  dryRuns: DryRunInput[];
  /** Adds a delivery (newest) and tells subscribers. */
  emit(d: DeliveryDetail): void;
  /** Stores a run's new state and tells run subscribers. */
  emitRun(r: RunSummary): void;
  listeners(): number;
  runListeners(): number;
}

/** A valid delivery; `over` changes what the test is about. */
export function delivery(over: Partial<DeliveryDetail> = {}): DeliveryDetail {
  return {
    id: "d-1",
    receivedAt: "2026-11-22T10:00:00.000Z",
    method: "POST",
    url: "/hooks/github",
    hook: "github",
    mappingId: "gh",
    client: "127.0.0.1",
    status: 202,
    latencyMs: 3,
    runIds: ["r-1"],
    headers: { "content-type": "application/json", authorization: "[redacted]" },
    body: '{"action":"opened"}',
    response: { ok: true, runId: "r-1" },
    ...over,
  };
}

export function createFakeInspector(init: { deliveries?: DeliveryDetail[]; runs?: RunSummary[]; mappings?: MappingSummary[] } = {}): FakeInspector {
  const subs = new Set<(d: DeliverySummary) => void>();
  const runSubs = new Set<(r: RunSummary) => void>();
  const f: FakeInspector = {
    deliveries: [...(init.deliveries ?? [])],
    runs: [...(init.runs ?? [])],
    mappingList: [...(init.mappings ?? [])],
    replayed: [],
    dryRuns: [],
    emit(d) {
      f.deliveries.unshift(d);
      for (const s of subs) s(d);
    },
    emitRun(r) {
      f.runs = [r, ...f.runs.filter((x) => x.id !== r.id)];
      for (const s of runSubs) s(r);
    },
    listeners: () => subs.size,
    runListeners: () => runSubs.size,
    listDeliveries: (q) =>
      f.deliveries
        .slice(q.before === undefined ? 0 : f.deliveries.findIndex((d) => d.id === q.before) + 1)
        .filter(
          (d) =>
            (q.hook === undefined || d.hook === q.hook) &&
            (q.status === undefined || String(d.status) === q.status || (q.status.endsWith("xx") && String(d.status)[0] === q.status[0])),
        )
        .filter((d) => q.since === undefined || d.receivedAt >= q.since)
        // Every word, anywhere in hook, event, status or body (the real ledger uses its FTS index).
        .filter(
          (d) =>
            q.search === undefined ||
            q.search
              .toLowerCase()
              .split(/\s+/)
              .every((w) => [d.hook, d.event, String(d.status), d.body].join(" ").toLowerCase().includes(w)),
        )
        .slice(0, q.limit ?? 50),
    getDelivery: (id) => f.deliveries.find((d) => d.id === id),
    async replay(id): Promise<ReplayResult | undefined> {
      if (!f.getDelivery(id)) return undefined;
      f.replayed.push(id);
      return { deliveryId: `${id}-replay`, status: 202, body: { ok: true, runId: "r-new" } };
    },
    listRuns: (q) => f.runs.filter((r) => q.status === undefined || r.status === q.status).slice(0, q.limit ?? 50),
    getRun: (id) => f.runs.find((r) => r.id === id),
    mappings: () => f.mappingList,
    async dryRun(input) {
      f.dryRuns.push(input);
      return { ok: true, lines: [`hook: ${input.hook}`, "action: wake"], mappingId: "gh", action: { kind: "wake", text: input.body } };
    },
    summary: () => ({ queued: f.runs.filter((r) => r.status === "queued").length, running: 0, failedLastHour: 0, ledgerEntries: f.deliveries.length }),
    subscribe(listener) {
      subs.add(listener);
      return () => void subs.delete(listener);
    },
    subscribeRuns(listener) {
      runSubs.add(listener);
      return () => void runSubs.delete(listener);
    },
  };
  return f;
}
