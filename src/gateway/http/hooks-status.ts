/**
 * The hooks summary of `GET /api/status` (SPEC §11): last delivery, queued and
 * running runs, runs failed in the last hour and the ledger's size, added up over
 * the inspectors the loaded plugins registered (host API 1.3). Counts only: no
 * paths, no secrets. An inspector that throws is left out (and logged), so the
 * status route keeps answering.
 */
import type { HostLogger } from "../../host-contract/host-api";
import type { HookInspector, HooksSummary } from "../../host-contract/inspection";

export function hooksStatus(inspectors: ReadonlyArray<{ pluginId: string; inspector: HookInspector }>, logger: HostLogger): HooksSummary | undefined {
  if (inspectors.length === 0) return undefined;
  const total: HooksSummary = { queued: 0, running: 0, failedLastHour: 0, ledgerEntries: 0 };
  for (const { pluginId, inspector } of inspectors) {
    let s: HooksSummary;
    try {
      s = inspector.summary();
    } catch (e) {
      logger.warn("a plugin's hooks summary could not be read", { pluginId, error: (e as Error).message });
      continue;
    }
    total.queued += s.queued;
    total.running += s.running;
    total.failedLastHour += s.failedLastHour;
    total.ledgerEntries += s.ledgerEntries;
    if (s.lastDeliveryAt && (!total.lastDeliveryAt || s.lastDeliveryAt > total.lastDeliveryAt)) total.lastDeliveryAt = s.lastDeliveryAt;
  }
  return total;
}
