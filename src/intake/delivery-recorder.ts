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
import type { ModuleLogger } from "../core/logger";
import { CLIENT_WENT_AWAY, refusedBeforeAuthentication, type Outcome } from "../core/outcome";
import { redactHeaders, redactText } from "../host-contract/redaction";
import { isLedgerRoute } from "../core/hook-route";
import type { HookRequest } from "./hook-request";
import type { LedgerAccess } from "./ledger/ledger-routes";
import { deliveryId } from "./ledger/delivery-id";

/** A finished request as the adapter hands it over: the answer's status and outcome, and what was read. */
export interface FinishedDelivery {
  /** Milliseconds from the clock when the request entered the pipeline. */
  receivedAt: number;
  status: number;
  outcome: Outcome;
  /** The raw body as read (absent when it was not read, e.g. refused as too large). */
  rawBody?: Buffer;
  /** The JSON answer (error bodies included); absent for 204 or a text answer. */
  answer?: unknown;
  /** The answer's own headers (what the pipeline set: Preference-Applied, Retry-After, …). */
  responseHeaders?: Readonly<Record<string, string>>;
}

/** Lower-case names, redacted like request headers. */
function answerHeaders(headers: Readonly<Record<string, string>>, ledger: LedgerAccess): Record<string, string> {
  return redactHeaders(Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)])), ledger.hiddenHeaders, ledger.secrets);
}

export interface DeliveryRecorder {
  /** Records a finished request, unless it was one of the ledger's own routes (reads and replays are not recorded). */
  finished(req: HookRequest, delivery: FinishedDelivery): void;
}

export function createDeliveryRecorder(opts: { ledger: LedgerAccess; logger: ModuleLogger; clock: () => number; idGen?: () => string }): DeliveryRecorder {
  const { ledger, logger, clock } = opts;
  const idGen = opts.idGen ?? (() => deliveryId(clock()));
  return {
    finished(req, d) {
      try {
        if (req.route.ok && isLedgerRoute(req.route.route)) return;
        const o = d.outcome;
        ledger.store.record({
          id: idGen(),
          receivedAt: d.receivedAt,
          method: req.method,
          url: redactText(req.rawUrl, ledger.secrets),
          ...(req.hook !== undefined ? { hook: req.hook } : {}),
          ...(o.mappingId !== undefined ? { mappingId: o.mappingId } : {}),
          client: req.client,
          status: d.status,
          ...(o.code !== undefined ? { code: o.code } : o.clientGone ? { code: CLIENT_WENT_AWAY } : {}),
          latencyMs: clock() - d.receivedAt,
          ...(o.idempotencyKey !== undefined ? { idempotencyKey: o.idempotencyKey } : {}),
          runIds: [...o.runIds],
          headers: redactHeaders(req.headers, ledger.hiddenHeaders, ledger.secrets),
          ...(d.rawBody ? { body: d.rawBody } : {}),
          ...(d.answer !== undefined ? { response: d.answer } : {}),
          ...(d.responseHeaders ? { responseHeaders: answerHeaders(d.responseHeaders, ledger) } : {}),
          // An idempotent repeat (the earlier answer sent again), and a request whose answer waited for its run.
          ...(o.replayed ? { repeat: true } : {}),
          ...(o.event !== undefined ? { event: o.event } : {}),
          ...(d.responseHeaders && Object.keys(d.responseHeaders).some((k) => k.toLowerCase() === "preference-applied") ? { waited: true } : {}),
          // Kept without its body, in the ledger's bounded share (SPEC §11).
          ...(o.kind === "refused" && refusedBeforeAuthentication(o) ? { refused: true } : {}),
        });
      } catch (e) {
        logger.error("delivery not recorded in the ledger", { error: (e as Error).message });
      }
    },
  };
}
