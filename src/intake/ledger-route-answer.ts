/**
 * The run and ledger routes (`runs`, `runs/<id>`, `deliveries`, `deliveries/<id>`,
 * `deliveries/<id>/replay`) once admitted: answered by src/intake/ledger/ as an Answer
 * whose outcome is `served` (these requests are not deliveries; a replay records its
 * own new delivery).
 */
import { HookError } from "../core/errors";
import { outcome } from "../core/outcome";
import type { LedgerRoute } from "../core/hook-route";
import { serveLedgerRoute, type LedgerRouteDeps } from "./ledger/ledger-routes";
import { refusal, type Answer, type HookRequest } from "./hook-request";

export async function answerLedgerRoute(req: HookRequest, route: LedgerRoute, deps: LedgerRouteDeps): Promise<Answer> {
  try {
    const response = await serveLedgerRoute(route, req.query, req.client, deps);
    return { ...response, outcome: outcome({ kind: "served", stage: "read", authenticated: true }) };
  } catch (e) {
    if (!(e instanceof HookError)) throw e;
    return refusal(e, "read", true);
  }
}
