/**
 * The inspector's operations that are not pages (host-contract/operator-route.ts `OperatorMethod`), for a host
 * whose operator page is read-only but which serves methods on an authenticated surface of its own: inside
 * OpenClaw the gateway methods `inbound-webhooks.<name>` (scope `operator.write`), called by any gateway client,
 * `openclaw gateway call` included. The same operations as the embedded dashboard's forms, through the same
 * inspector: `deliveries.replay` is `HookInspector.replay`, the accept path of every replay (src/intake/replay.ts).
 *
 * `deliveries.replay-filter` is the bulk replay by filter (HookInspector.previewBulkReplay / bulkReplay,
 * src/intake/bulk-replay.ts): params `hook`, `status`, `since` (an ISO time), `search` — the API's filter —
 * answer the preview; the same params with the preview's `confirm` replay what it counted, once.
 * More methods go beside them by name: each validates its own params.
 *
 * @example
 *   const methods = operatorMethods({ inspector, logger });
 *   await methods["deliveries.replay"].handle({ id: "0b5c…" }, { clientAddress: "127.0.0.1" });
 *   // → { ok: true, replayOf: "0b5c…", deliveryId: "…", status: 202, body: { ok: true, runId: "…" } }
 */
import type { HookInspector } from "../core/inspection";
import { beforeProblem, isReplayRefusal } from "../core/inspection";
import { HookError, hookErrors } from "../core/errors";
import { BULK_FILTER_PARAMS, type BulkReplayFilter } from "../core/bulk-replay";
import type { HostLogger } from "../host-contract/host-api";
import type { OperatorMethod, OperatorMethodRefusal } from "../host-contract/operator-route";

function methodRefusal(status: number, code: string, message: string): Error & OperatorMethodRefusal {
  return Object.assign(new Error(message), { status, code });
}

/** The params' `id`: a delivery id, else a refusal naming the field and its rule. */
function deliveryIdOf(params: Readonly<Record<string, unknown>>): string {
  const unknown = Object.keys(params).filter((k) => k !== "id");
  if (unknown.length > 0) throw methodRefusal(400, "invalid_request", `Unknown param ${unknown[0]}; deliveries.replay takes only id.`);
  const id = typeof params.id === "string" ? params.id : "";
  // A delivery id as DeliveryQuery.before names one (letters, digits and -, at most 100).
  const problem = beforeProblem(id);
  if (problem !== undefined) throw methodRefusal(400, "invalid_request", `Param id is required and ${problem}.`);
  return id;
}

export function operatorMethods(opts: { inspector: HookInspector; logger: HostLogger }): Record<string, OperatorMethod> {
  const replay: OperatorMethod = {
    write: true,
    async handle(params) {
      const id = deliveryIdOf(params);
      let result;
      try {
        result = await opts.inspector.replay(id);
      } catch (e) {
        // Refused at authentication, stored without its body: the operator's answer, as the dashboard's form says it.
        if (isReplayRefusal(e)) throw methodRefusal(e.status, e.code, e.message);
        throw e;
      }
      if (!result) {
        const notFound = hookErrors.deliveryNotFound();
        throw methodRefusal(notFound.status, notFound.code, notFound.message);
      }
      opts.logger.info("operator method replay", { deliveryId: id, newDeliveryId: result.deliveryId, status: result.status });
      return { ok: true, replayOf: id, deliveryId: result.deliveryId, status: result.status, body: result.body };
    },
  };
  const replayFilter: OperatorMethod = {
    write: true,
    async handle(params) {
      const filter: BulkReplayFilter = {};
      for (const [k, v] of Object.entries(params)) {
        const name = BULK_FILTER_PARAMS.find((f) => f === k);
        if ((!name && k !== "confirm") || typeof v !== "string")
          throw methodRefusal(400, "invalid_request", `Param ${k.slice(0, 100)} must be one of hook, status, since, search, confirm, as a string.`);
        if (name) filter[name] = v;
      }
      const { previewBulkReplay, bulkReplay } = opts.inspector;
      if (!previewBulkReplay || !bulkReplay) throw methodRefusal(404, "not_found", "This plugin offers no bulk replay.");
      try {
        if (typeof params.confirm !== "string") return { ok: true, preview: await previewBulkReplay(filter) };
        const result = await bulkReplay(filter, params.confirm);
        opts.logger.info("operator method bulk replay", { count: result.count, failed: result.failed, repeated: result.repeated });
        return { ok: true, replay: result };
      } catch (e) {
        if (e instanceof HookError) throw methodRefusal(e.status, e.code, e.message);
        throw e;
      }
    },
  };
  return { "deliveries.replay": replay, "deliveries.replay-filter": replayFilter };
}
