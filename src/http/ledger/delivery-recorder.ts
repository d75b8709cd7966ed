/**
 * Turns a finished hook request into a ledger row (SPEC §11). Called from the
 * router's `finish` handler, after the answer is written: it only collects what
 * the pipeline noted while it ran (status, code, mapping, run, the body it read,
 * the answer) and hands the row to the ledger's buffer, so it can neither delay
 * nor change the answer. A failure here is logged and swallowed.
 *
 * Headers are stored lower-case with every credential, signature and cookie value
 * redacted, and the URL with every credential-named query parameter redacted, by
 * the one redaction rule (src/host-contract/redaction.ts), which also hides the
 * configured secrets wherever they appear.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { ModuleLogger } from "../../core/logger";
import { redactHeaders, redactText } from "../../host-contract/redaction";
import { hookName, isLedgerRoute, parseHookRoute, type HookRoute } from "../hook-route";
import { flatHeaders } from "../request-input";
import { codeForStatus } from "../request-reporter";
import type { LedgerAccess } from "./ledger-routes";
import { deliveryId } from "./delivery-id";

/** What the pipeline notes about a request for its ledger row (all optional). */
export interface LedgerFacts {
  /** The raw body as read (absent when it was not read, e.g. refused as too large). */
  body?: Buffer;
  /** The JSON answer (error bodies included); absent for 204 or a response written elsewhere. */
  answer?: unknown;
  code?: string;
  mappingId?: string;
  runIds?: string[];
  idempotencyKey?: string;
}

/** The request as the router's `finish` handler sees it. */
export interface FinishedRequest {
  method: string;
  originalUrl: string;
  headers: IncomingHttpHeaders;
}

/** The router's bookkeeping of the request. */
export interface FinishedState {
  startedAt: number;
  client: string;
  route?: HookRoute;
  facts: LedgerFacts;
}

export interface DeliveryRecorder {
  /** Records a finished request, unless it was one of the ledger's own routes (reads and replays are not recorded). */
  finished(req: FinishedRequest, status: number, state: FinishedState): void;
}

export function createDeliveryRecorder(opts: { ledger: LedgerAccess; hooksPath: string; logger: ModuleLogger; clock: () => number; idGen?: () => string }): DeliveryRecorder {
  const { ledger, logger, clock } = opts;
  // From the original URL, not req.path: by `finish` Express may have restored the URL of the mount point.
  const pathBelow = (originalUrl: string) => (originalUrl.split("?")[0] ?? "").slice(opts.hooksPath.length);
  const idGen = opts.idGen ?? (() => deliveryId(clock()));
  return {
    finished(req, status, state) {
      try {
        const parsed = state.route ? undefined : parseHookRoute(pathBelow(req.originalUrl), opts.hooksPath);
        const route = state.route ?? (parsed?.ok ? parsed.route : undefined);
        if (isLedgerRoute(route)) return;
        const { facts } = state;
        // A response written outside the renderer (the rate limiter) has no code of its own.
        const code = facts.code ?? (status >= 400 ? codeForStatus(status) : undefined);
        ledger.store.record({
          id: idGen(),
          receivedAt: state.startedAt,
          method: req.method,
          url: redactText(req.originalUrl, ledger.secrets),
          ...(route !== undefined ? { hook: hookName(route) } : {}),
          ...(facts.mappingId !== undefined ? { mappingId: facts.mappingId } : {}),
          client: state.client,
          status,
          ...(code !== undefined ? { code } : {}),
          latencyMs: clock() - state.startedAt,
          ...(facts.idempotencyKey !== undefined ? { idempotencyKey: facts.idempotencyKey } : {}),
          runIds: facts.runIds ?? [],
          headers: redactHeaders(flatHeaders(req.headers), ledger.hiddenHeaders, ledger.secrets),
          ...(facts.body ? { body: facts.body } : {}),
          ...(facts.answer !== undefined ? { response: facts.answer } : {}),
        });
      } catch (e) {
        logger.error("delivery not recorded in the ledger", { error: (e as Error).message });
      }
    },
  };
}
