/**
 * The accept path, the second half of the core (SPEC §4.1 "One accept path";
 * docs/architecture.md "Request lifecycle"): for an admitted request and its raw
 * body,
 *
 *   encoding, size → parse (every media type) → select the mapping once → idempotency → validate → dispatch
 *
 * returning the answer and its one Outcome. Live requests, replay (idempotency off,
 * verification already done) and the dry run (a recording dispatcher) all run it.
 * No Express: the adapter writes the answer.
 *
 * @example
 *   const accept = createAccept({ config, respond, mappings, idempotency });
 *   const answer = await accept(req, route, rawBody, { idempotency: true });
 */
import { createHash } from "node:crypto";
import { afterIoPoll } from "../core/after-io-poll";
import { unsupportedEncoding } from "../actions/body/media-type";
import { parseRequestBody } from "../actions/body/parse-request-body";
import type { HooksConfig } from "../config/types";
import { HookError } from "../core/errors";
import { outcome, type Outcome } from "../core/outcome";
import type { HookResponse, IdempotencyGuard, MappedHookResolver, MappingSelection } from "../core/ports";
import { signedIdsOf } from "../safety/signatures/signed-ids";
import { runIdempotencyKey } from "../store/idempotency-store";
import type { PathVerifier } from "./auth/signature-gate";
import { bodySizeRefusal } from "../actions/body/body-size";
import type { HookRoute, LedgerRoute } from "../core/hook-route";
import { requestIdempotencyKey } from "./idempotency/mapping-idempotency-key";
import type { WaitGate } from "./responses/prefer-wait";
import { refusal, type Answer, type HookRequest } from "./hook-request";
import type { Effect, Respond } from "./validate-and-dispatch";

export interface AcceptDeps {
  config: HooksConfig;
  respond: Respond;
  mappings?: MappedHookResolver;
  /** Durable idempotency; without it idempotency headers are ignored. */
  idempotency?: IdempotencyGuard;
  /** `Prefer: wait` on agent hooks. */
  waits?: WaitGate;
}

export interface AcceptOptions {
  /** False for a replay: the point of a replay is to run again. */
  idempotency: boolean;
  /**
   * The scheme of the path's signature — checked live, already checked for a replay, not checked
   * by the dry run: the signed message id (and the mapping's template) key idempotency first.
   */
  verifiedBy?: Pick<PathVerifier, "scheme">;
  /** Registers what to do when the client disconnects (live requests). */
  onClientGone?: (stop: () => void) => void;
}

export type AcceptRoute = Exclude<HookRoute, LedgerRoute>;
export type Accept = (req: HookRequest, route: AcceptRoute, rawBody: Buffer, options: AcceptOptions) => Promise<Answer>;

/**
 * From this many bytes of body, reading and parsing it (with the mapping's selection and the
 * idempotency key) take one turn of the event loop and the dispatch (rendering, the wrapper,
 * storing the event or run) the next: a 191 KB body of marker look-alikes held the loop for
 * 40–60 ms in one stretch (docs/performance.md, stall table).
 */
export const SPLIT_AFTER_PARSE_BYTES = 64 * 1024;

/** The body hash recorded for a signed id's key (never a SHA-256 hex, so never equal to a body's). */
const SIGNED_ID_HASH = "signed-id";

/**
 * The outcome of an answer the idempotency guard replayed: the stored 2xx body is
 * one of the shapes of SPEC §4.2 (the guard stores status, body and headers only).
 */
function replayedEffect(response: HookResponse): Effect {
  const body = (response.body ?? {}) as { runId?: unknown; mapping?: unknown; pong?: unknown; runs?: unknown };
  const mappingId = typeof body.mapping === "string" ? { mappingId: body.mapping } : {};
  if (Array.isArray(body.runs))
    return { kind: "batch", runIds: body.runs.flatMap((r: { runId?: unknown }) => (typeof r?.runId === "string" ? [r.runId] : [])), ...mappingId };
  if (typeof body.runId === "string") return { kind: "agent", runIds: [body.runId], ...mappingId };
  if (response.status === 204) return { kind: "skip", runIds: [], ...mappingId };
  return { kind: body.pong === true ? "pong" : "wake", runIds: [], ...mappingId };
}

export function createAccept(deps: AcceptDeps): Accept {
  const { config } = deps;

  return async function accept(req, route, rawBody, options) {
    const hook = req.hook!;
    const fail = (e: unknown, extra: Partial<Outcome> = {}): Answer => {
      if (!(e instanceof HookError)) throw e;
      return refusal(e, "accept", true, extra);
    };
    // Stages 6–7 on a body already in hand (a replay's stored body, the dry run's): today's rules, as a
    // live request meets them before and while its body is read (a live body got here within them).
    const bodyRefused = unsupportedEncoding(req.headers["content-encoding"]) ?? bodySizeRefusal(rawBody.length, config.maxBodyBytes);
    if (bodyRefused) return refusal(bodyRefused, "body", true);
    const payload = await parseRequestBody(rawBody, { mapped: route.kind === "mapped", contentType: req.headers["content-type"] });
    // A body that does not parse is refused at the body stage (the dry run reports it as such).
    if (!payload.ok) return refusal(payload.error, "body", true);

    const input = { name: hook, payload: payload.value, headers: req.headers, query: req.query, url: req.url, requestId: req.requestId };
    const selection: MappingSelection | undefined = route.kind === "mapped" ? deps.mappings?.select(input) : undefined;
    // What happened at the sender (SPEC §6.1 `event`), on the outcome of an answer and of a refusal alike.
    const eventName = selection?.event?.();
    const event = eventName !== undefined ? { event: eventName } : {};
    const verified = options.verifiedBy && signedIdsOf(options.verifiedBy.scheme, req.headers, payload.value);
    // Checked even when idempotency is off (a replay, the dry run): a malformed key is refused as it was live.
    const keyed = requestIdempotencyKey(req.headers, selection, verified);
    if (!keyed.ok) return fail(keyed.error, selection ? { mappingId: selection.mappingId, ...event } : {});
    const key = options.idempotency && deps.idempotency ? keyed.value?.key : undefined;
    // The scope is the hook's one name (SPEC §4.1): /hooks/a//b and /hooks/%61/b are /hooks/a/b.
    const scope = `${config.path}/${hook}`;
    const idempotencyKey = key !== undefined ? { idempotencyKey: key } : {};
    // Only a live request waits for its run (a replay answers at once, whatever its stored Prefer header).
    const waiting =
      options.onClientGone &&
      deps.waits?.prepare({ prefer: req.headers.prefer, client: req.client, routeKind: route.kind, onClientGone: options.onClientGone });

    let effect: Effect | undefined;
    const run = async (): Promise<HookResponse> => {
      // After the idempotency guard has reserved the key: requests with one key keep their order.
      if (rawBody.length >= SPLIT_AFTER_PARSE_BYTES) await afterIoPoll();
      const done = await deps.respond({
        requestId: req.requestId,
        route,
        hook,
        payload: payload.value,
        selection,
        ...(key !== undefined ? { idempotencyKey: runIdempotencyKey(scope, key) } : {}),
        ...(waiting ? { awaitRun: (runId: string) => waiting.awaitRun(runId) } : {}),
      });
      effect = done.effect;
      return done.response;
    };
    let response: HookResponse & { replayed?: boolean };
    try {
      if (key !== undefined && deps.idempotency) {
        // A key the signature covers is the sender's own id of the event: its retries are that event even when other
        // fields changed (Stripe's pending_webhooks), so they replay the first answer instead of 422 idempotency_key_reused.
        const bodyHash = keyed.value?.signed ? SIGNED_ID_HASH : createHash("sha256").update(rawBody).digest("hex");
        response = await deps.idempotency.handle({ scope, key, bodyHash }, run);
      } else {
        response = await run();
      }
    } catch (e) {
      await waiting?.finish({ status: 0 });
      return fail(e, { ...idempotencyKey, ...(selection ? { mappingId: selection.mappingId, ...event } : {}) });
    }
    if (waiting) response = { ...(await waiting.finish(response)), ...(response.replayed ? { replayed: true } : {}) };
    const outcomeEffect = response.replayed || !effect ? replayedEffect(response) : effect;
    const { replayed, ...answer } = response;
    return {
      ...answer,
      outcome: outcome({ ...outcomeEffect, stage: "accept", authenticated: true, ...(replayed ? { replayed: true } : {}), ...idempotencyKey, ...event }),
    };
  };
}
