/**
 * The framework-free core of the hooks route, assembled (docs/architecture.md
 * "Request lifecycle"): admit → read the body (through the adapter) → verify the
 * signature on a verified path → accept, or a run/ledger read. It takes a
 * HookRequest and two functions from the adapter (read the body, learn that the
 * client went away) and returns the Answer; it imports no Express. After the
 * answer is written the adapter calls `finished` so the reporter (log, events,
 * metrics) and the ledger read the one Outcome.
 *
 * @example
 *   const pipeline = createHookPipeline(deps);
 *   const handled = await pipeline.handle(hookRequest, { readBody, onClientGone });
 */
import type { ResolvedHooksConfig } from "../config/types";
import { hookErrors, type Result } from "../core/errors";
import type { PluginEmitter } from "../core/events";
import type { ModuleLogger } from "../core/logger";
import type { HostRuntime } from "../host-contract/host-api";
import type { KeyNamer } from "../host-contract/config-keys";
import type { Dispatcher, IdempotencyGuard, MappedHookResolver, PipelineMetrics, RunLookup } from "../core/ports";
import { unsupportedEncoding } from "../actions/body/media-type";
import { createAuthenticator, type ThrottleTables } from "./auth/authenticate";
import { createQueryTokenWarner } from "./auth/query-token-warner";
import type { SignatureGate } from "./auth/signature-gate";
import type { HandshakeGate } from "./handshake";
import { isLedgerRoute } from "../core/hook-route";
import { NO_LEDGER, type LedgerAccess, type NoLedger } from "./ledger";
import { createDeliveryRecorder } from "./delivery-recorder";
import { createRequestReporter, type RequestRecord } from "./request-reporter";
import type { WaitGate } from "./responses/prefer-wait";
import { createAccept, type Accept } from "./accept";
import { createAdmission } from "./admit";
import { answerNamingKeys, refusal, type Answer, type HookRequest } from "./hook-request";
import { tookEffect } from "../core/outcome";
import type { RatePolicy } from "./rate-policy";
import { answerLedgerRoute } from "./ledger-route-answer";
import { createRespond } from "./validate-and-dispatch";

export interface HookPipelineDeps {
  config: ResolvedHooksConfig;
  runtime: HostRuntime;
  logger: ModuleLogger;
  emitter: PluginEmitter;
  dispatcher: Dispatcher;
  /** Resolver of mapped hooks; without it every name but wake/agent is 404. */
  mappings?: MappedHookResolver;
  /** Durable idempotency; without it idempotency headers are ignored. */
  idempotency?: IdempotencyGuard;
  /** Run lookup for `GET {path}/runs/<id>`. */
  runs?: RunLookup;
  /** The delivery ledger (SPEC §11): records each hook request; serves `runs`, `deliveries` and replay. A host without one passes NO_LEDGER. */
  ledger: LedgerAccess | NoLedger;
  /** True once the gateway is stopping: new requests get 503 `shutting_down`. */
  isShuttingDown?: () => boolean;
  /** Verified paths (SPEC §10): requests there are authenticated by signature, not by the hook token. */
  signatures?: SignatureGate;
  /** Meta verification GETs (SPEC §12). */
  handshakes?: HandshakeGate;
  /** `Prefer: wait` on agent hooks (SPEC §12). */
  waits?: WaitGate;
  /** Per-client request limits, applied once the credential passed. */
  ratePolicy?: RatePolicy;
  /** Every answered request and refused signature (SPEC §11). A host that keeps no metrics passes NO_METRICS. */
  metrics: PipelineMetrics;
  /** Milliseconds since the epoch; default Date.now. */
  clock?: () => number;
  /** Default session-key uuids; default crypto.randomUUID. */
  idGen?: () => string;
  /** Table sizes of the auth-failure throttle; default 10,000 clients counting and 10,000 throttled. */
  throttleTables?: ThrottleTables;
  /** The accept path, when it is shared with replay (built from these deps otherwise). */
  accept?: Accept;
  /** Names the plugin's config keys in every answer's sentence, as the host keeps them (config-keys.ts); absent: as written. */
  keys?: KeyNamer;
}

/** What the core needs from the adapter. */
export interface RequestConnection {
  /** Reads the body within the limits (413/408 as errors). */
  readBody(): Promise<Result<Buffer>>;
  /** Registers what to do when the client disconnects. */
  onClientGone(stop: () => void): void;
}

export interface Handled {
  answer: Answer;
  /** The body as read (for the ledger), when it was read. */
  rawBody?: Buffer;
}

export interface HookPipeline {
  handle(req: HookRequest, connection: RequestConnection): Promise<Handled>;
  /** Reports the answered request (log, events, metrics). */
  report(record: RequestRecord, handled: Handled): void;
  /** Records the request in the ledger once its answer is written. */
  finished(req: HookRequest, record: RequestRecord, handled: Handled): void;
  /** Reports a request whose client went away before it was answered. */
  aborted(record: RequestRecord): void;
  /**
   * The client went away before the answer was written. A request that took effect
   * (its run stored) is still reported and recorded, as 2xx with `clientGone`
   * (SPEC §11: every request that reaches a hook route is recorded); any other is
   * reported as aborted.
   */
  clientGone(req: HookRequest, record: RequestRecord, handled: Handled): void;
}

/** The one accept path of a runtime: live requests and replay share it. */
export function createAcceptFor(deps: Pick<HookPipelineDeps, "config" | "runtime" | "dispatcher" | "mappings" | "idempotency" | "waits" | "idGen">): Accept {
  const respond = createRespond({ config: deps.config, runtime: deps.runtime, dispatcher: deps.dispatcher, idGen: deps.idGen });
  return createAccept({ config: deps.config, respond, mappings: deps.mappings, idempotency: deps.idempotency, waits: deps.waits });
}

/** The answer with the admission's headers (rate limit, deprecation) added. */
const withHeaders = (answer: Answer, headers: Record<string, string>): Answer =>
  Object.keys(headers).length === 0 ? answer : { ...answer, headers: { ...headers, ...(answer.headers ?? {}) } };

export function createHookPipeline(deps: HookPipelineDeps): HookPipeline {
  const { config, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const authenticator = createAuthenticator({ config, clock, throttleTables: deps.throttleTables });
  const admission = createAdmission({ ...deps, authenticator, shouldWarnQueryToken: createQueryTokenWarner({ clock }) });
  const accept = deps.accept ?? createAcceptFor(deps);
  const reporter = createRequestReporter({ logger, emitter: deps.emitter, clock, metrics: deps.metrics });
  const ledger = deps.ledger === NO_LEDGER ? undefined : deps.ledger;
  const recorder = ledger && createDeliveryRecorder({ ledger, logger, clock });
  const ledgerRouteDeps = { ledger, runs: deps.runs, logger };

  /** The answer of the first stage that answers (the order of docs/architecture.md#request-lifecycle). */
  async function answerOf(req: HookRequest, connection: RequestConnection): Promise<Handled> {
    const admitted = admission.admit(req);
    if (admitted.kind === "answer") return { answer: admitted.answer };
    const { route, headers, verifier } = admitted;
    if (isLedgerRoute(route)) return { answer: withHeaders(await answerLedgerRoute(req, route, ledgerRouteDeps), headers) };
    const encodingRefused = unsupportedEncoding(req.headers["content-encoding"]);
    if (encodingRefused) return { answer: withHeaders(refusal(encodingRefused, "body", !verifier), headers) };
    const body = await connection.readBody();
    if (!body.ok) return { answer: withHeaders(refusal(body.error, "body", !verifier), { ...headers, Connection: "close" }) };
    const rawBody = body.value;
    const badSignature = verifier && admission.verifySignature(req, verifier, rawBody, headers);
    if (badSignature) return { answer: withHeaders(badSignature, headers), rawBody };
    const answer = await accept(req, route, rawBody, { idempotency: true, verifiedBy: verifier, onClientGone: connection.onClientGone });
    return { answer: withHeaders(answer, headers), rawBody };
  }

  /** Answers name the keys where the host keeps them, also as the ledger records them. */
  async function handle(req: HookRequest, connection: RequestConnection): Promise<Handled> {
    const handled = await answerOf(req, connection);
    return deps.keys ? { ...handled, answer: answerNamingKeys(handled.answer, deps.keys) } : handled;
  }

  const report: HookPipeline["report"] = (record, { answer, rawBody }) => {
    if (rawBody) record.bodyBytes = rawBody.length;
    reporter.report(record, answer.status, answer.outcome);
  };
  const finished: HookPipeline["finished"] = (req, record, { answer, rawBody }) => {
    recorder?.finished(req, {
      receivedAt: record.startedAt,
      status: answer.status,
      outcome: answer.outcome,
      ...(rawBody ? { rawBody } : {}),
      ...(answer.body !== undefined ? { answer: answer.body } : {}),
      ...(answer.headers ? { responseHeaders: answer.headers } : {}),
    });
  };

  return {
    handle,
    report,
    finished,
    aborted: (record) => reporter.aborted(record),
    clientGone(req, record, handled) {
      const { answer } = handled;
      if (answer.status >= 300 || !tookEffect(answer.outcome)) return reporter.aborted(record);
      const gone: Handled = { ...handled, answer: { ...answer, outcome: { ...answer.outcome, clientGone: true } } };
      logger.info("hook request accepted; the client went away before the answer", {
        requestId: record.requestId,
        hook: record.hook,
        status: answer.status,
        runIds: answer.outcome.runIds,
      });
      report(record, gone);
      finished(req, record, gone);
    },
  };
}

/** The answer of an unexpected failure (a bug): 500 `internal_error`, nothing of the cause. */
export function unexpectedAnswer(): Answer {
  return refusal(hookErrors.internalError(), "accept", false);
}
