/**
 * The hooks router (SPEC §4.1). The host mounts it with
 * `app.use(config.path, router)`; every request below the mount point runs:
 *
 *   request id → credentials (429 for a throttled client, on every route)
 *   → route + method (404/405) → auth (400/401) → shutting down (503)
 *   → rate limiter → body (415/413/408) → parse (400/415) → idempotency
 *   → handler: route → validate → dispatch → one renderer.
 *
 * Every response carries `X-Request-Id`.
 *
 * @example
 *   app.use(config.path, createHooksRouter({ config, runtime, logger, emitter, dispatcher }));
 */
import { createHash, randomUUID } from "node:crypto";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { hookErrors } from "../core/errors";
import { redactText } from "../host-contract/redaction";
import { runIdempotencyKey } from "../store/idempotency-store";
import { createAuthenticator } from "./auth/authenticate";
import { createQueryTokenWarner } from "./auth/query-token-warner";
import { unsupportedEncoding } from "../actions/body/media-type";
import { parseRequestBody } from "../actions/body/parse-request-body";
import { lingerAfterResponse } from "./body/linger";
import { readBody } from "./body/read-body";
import { QUERY_TOKEN_LOG_MESSAGE, QUERY_TOKEN_WARNING, SHUTDOWN_RETRY_AFTER_SECONDS } from "./pipeline-texts";
import { signedMessageIdHeader } from "../safety/signatures/standard-webhooks";
import { clientKey } from "./client-key";
import { createHookHandler, outcomeOf, outcomeRunIds, type HookRequestContext } from "./hook-handler";
import { allowedMethod, hookName, isLedgerRoute, parseHookRoute } from "./hook-route";
import { createDeliveryRecorder, methodNotAllowed, serveLedgerRoute } from "./ledger";
import { requestIdempotencyKey } from "./idempotency/mapping-idempotency-key";
import { renderHookError, renderHookResponse, toHookError } from "./render";
import { REQUEST_ID_HEADER, resolveRequestId } from "./request-id";
import { flatHeaders, flatQuery } from "./request-input";
import { codeForStatus, createRequestReporter } from "./request-reporter";
import { lookupRun } from "./run-status";
import { writeChallenge } from "./handshake";
import type { HooksRouterDeps, RequestState } from "./router-deps";
import { stagePipeline } from "./stage-pipeline";

export type { HooksRouterDeps } from "./router-deps";
import type { HookResponse } from "../core/ports";

export function createHooksRouter(deps: HooksRouterDeps): RequestHandler {
  const { config, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const idGen = deps.idGen ?? randomUUID;
  const authenticator = createAuthenticator({ config, clock });
  const shouldWarnQueryToken = createQueryTokenWarner({ clock });
  const reporter = createRequestReporter({ logger, emitter: deps.emitter, clock, metrics: deps.metrics });
  const handle = createHookHandler({
    config,
    runtime: deps.runtime,
    dispatcher: deps.dispatcher,
    mappings: deps.mappings,
    idGen: deps.idGen,
  });
  const recorder = deps.ledger && createDeliveryRecorder({ ledger: deps.ledger, hooksPath: config.path, logger, clock });
  const states = new WeakMap<Request, RequestState>();
  const stateOf = (req: Request): RequestState => {
    const state = states.get(req);
    if (!state) throw new Error("hooks router: request state missing");
    return state;
  };

  /** Request id, bookkeeping, and the case-variant mount path (`/HOOKS` is not ours). */
  function begin(req: Request, res: Response, next: NextFunction): void {
    if (req.baseUrl !== config.path && req.baseUrl.toLowerCase() === config.path.toLowerCase()) {
      next("router");
      return;
    }
    const state: RequestState = {
      requestId: resolveRequestId(req.headers["x-request-id"], idGen),
      startedAt: clock(),
      startedHr: performance.now(),
      client: clientKey(req),
      method: req.method,
      url: redactText(req.originalUrl),
      reported: false,
      facts: {},
    };
    states.set(req, state);
    res.setHeader(REQUEST_ID_HEADER, state.requestId);
    res.once("finish", () => {
      // Responses written outside the renderer (the rate limiter) are reported here.
      if (res.statusCode >= 400) reporter.rejected(state, res.statusCode, codeForStatus(res.statusCode));
      else reporter.served(state, res.statusCode);
      recorder?.finished(req, res.statusCode, state);
    });
    res.once("close", () => {
      if (!res.writableFinished) reporter.aborted(state);
    });
    next();
  }

  /**
   * Checks the token before routing: a missing or wrong token counts as a failure
   * whatever the route and method, and a throttled client gets 429 at once — so
   * neither the run-status GET nor a 404/405 answer can be used to test tokens.
   * Other verdicts wait for the auth stage (path and method errors come first).
   */
  function checkCredentials(req: Request, _res: Response, next: NextFunction): void {
    const state = stateOf(req);
    const parsed = parseHookRoute(req.path, config.path);
    const route = parsed.ok ? parsed.route : undefined;
    state.route = route;
    state.routeError = parsed.ok ? undefined : parsed.error;
    if (route) state.hook = hookName(route);
    const verifier = route?.kind === "mapped" ? deps.signatures?.forHook(route.name) : undefined;
    state.handshake = route?.kind === "mapped" && req.method === "GET" ? deps.handshakes?.forHook(route.name) : undefined;
    if (verifier || state.handshake) {
      // A verified path (or a Meta verification GET): the hook token is not checked at all; the signature (the verify token) is.
      state.signedBy = verifier;
      next(authenticator.throttled(state.client));
      return;
    }
    state.auth = authenticator.authenticate({ headers: req.headers, url: req.originalUrl, client: state.client });
    if (!state.auth.ok && state.auth.error.code === "too_many_requests") {
      next(state.auth.error);
      return;
    }
    next();
  }

  function routeAndMethod(req: Request, _res: Response, next: NextFunction): void {
    const state = stateOf(req);
    // Parsed by checkCredentials, the stage before.
    const route = state.route;
    if (!route) {
      next(state.routeError);
      return;
    }
    const allowed = allowedMethod(route);
    if (req.method !== allowed && !state.handshake) {
      next(methodNotAllowed(route, config.path));
      return;
    }
    next();
  }

  function authenticate(req: Request, res: Response, next: NextFunction): void {
    const state = stateOf(req);
    if (state.signedBy || state.handshake) {
      next();
      return;
    }
    const result = state.auth!;
    if (!result.ok) {
      next(result.error);
      return;
    }
    if (result.value.carrier === "query") {
      res.setHeader("Deprecation", "true");
      res.setHeader("Warning", QUERY_TOKEN_WARNING);
      if (shouldWarnQueryToken(state.client)) {
        logger.warn(QUERY_TOKEN_LOG_MESSAGE, { requestId: state.requestId, hook: state.hook, client: state.client, url: state.url });
      }
    }
    next();
  }

  function refuseWhileShuttingDown(_req: Request, _res: Response, next: NextFunction): void {
    if (deps.isShuttingDown?.()) {
      next(hookErrors.shuttingDown({ headers: { "Retry-After": String(SHUTDOWN_RETRY_AFTER_SECONDS) } }));
      return;
    }
    next();
  }

  async function serve(req: Request, res: Response): Promise<void> {
    const state = stateOf(req);
    const route = state.route!;
    if (isLedgerRoute(route)) {
      const response = await serveLedgerRoute(route, flatQuery(req.originalUrl), state.client, { ledger: deps.ledger, runs: deps.runs, logger });
      reporter.served(state, response.status);
      renderHookResponse(res, response);
      return;
    }
    if (state.handshake) {
      const answer = state.handshake.answer(flatQuery(req.originalUrl));
      if (!answer.ok) throw authenticator.refuse(state.client, answer.error);
      reporter.accepted(state, 200, { kind: "handshake", mappingId: state.handshake.mappingId });
      return writeChallenge(res, answer.challenge);
    }

    const encodingRefused = unsupportedEncoding(req.headers["content-encoding"]);
    if (encodingRefused) throw encodingRefused;
    const body = await readBody(req, { limit: config.maxBodyBytes, timeoutMs: config.bodyTimeoutMs });
    if (!body.ok) {
      res.setHeader("Connection", "close");
      throw body.error;
    }
    state.bodyBytes = body.value.length;
    state.facts.body = body.value;
    if (state.signedBy) {
      // Checked again now the body is read: requests already in flight when the client got throttled are refused too.
      const throttled = authenticator.throttled(state.client);
      if (throttled) throw throttled;
      const failure = state.signedBy.verify({ headers: flatHeaders(req.headers), rawBody: body.value });
      if (failure) {
        deps.metrics?.signatureFailed(state.signedBy.scheme);
        throw authenticator.refuseSignature(state.client, failure);
      }
    }
    const payload = await parseRequestBody(body.value, { mapped: route.kind === "mapped", contentType: req.headers["content-type"] });
    if (!payload.ok) throw payload.error;
    const ctx: HookRequestContext = {
      requestId: state.requestId,
      route,
      name: state.hook!,
      payload: payload.value,
      headers: flatHeaders(req.headers),
      query: flatQuery(req.originalUrl),
      url: state.url,
      outcome: {},
    };
    const mappedInput = route.kind === "mapped" ? { name: route.name, payload: ctx.payload, headers: ctx.headers, query: ctx.query, url: ctx.url, requestId: ctx.requestId } : undefined;
    const verified = state.signedBy && { signedId: state.signedBy.scheme === "standard-webhooks" ? signedMessageIdHeader(ctx.headers) : undefined };
    const idempotency = requestIdempotencyKey(req.headers, mappedInput, deps.mappings, verified);
    if (!idempotency.ok) throw idempotency.error;
    const waiting = deps.waits?.prepare(req.headers.prefer, res, state.client, ctx);
    let response: HookResponse & { replayed?: boolean };
    if (deps.idempotency && idempotency.value) {
      // The scope is the hook's one name (SPEC §4.1): /hooks/a//b and /hooks/%61/b are /hooks/a/b.
      const scope = `${config.path}/${state.hook}`;
      const { key } = idempotency.value;
      state.facts.idempotencyKey = key;
      ctx.idempotencyKey = runIdempotencyKey(scope, key);
      const bodyHash = createHash("sha256").update(body.value).digest("hex");
      response = await deps.idempotency.handle({ scope, key, bodyHash }, () => handle(ctx));
    } else {
      response = await handle(ctx);
    }
    if (waiting) response = await waiting.finish(response);
    const outcome = outcomeOf(response, ctx.outcome);
    Object.assign(state.facts, { mappingId: outcome.mappingId, runIds: outcomeRunIds(outcome), answer: response.body });
    reporter.accepted(state, response.status, {
      kind: outcome.kind!,
      mappingId: outcome.mappingId,
      runId: outcome.runId,
      replayed: response.replayed === true ? true : undefined,
    });
    renderHookResponse(res, response);
  }

  function renderError(e: unknown, req: Request, res: Response, _next: NextFunction): void {
    const state = states.get(req);
    const { error, unexpected } = toHookError(e);
    if (unexpected) {
      const cause = e instanceof Error ? { error: e.message, stack: e.stack } : { error: String(e) };
      logger.error("hook request failed with an unexpected error", { requestId: state?.requestId, hook: state?.hook, ...cause });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // Never buffer an unread body: answer at once, then close the connection without a reset (see linger.ts).
    if (!req.complete) {
      res.setHeader("Connection", "close");
      lingerAfterResponse(req);
    }
    if (state) {
      reporter.rejected(state, error.status, error.code);
      Object.assign(state.facts, { code: error.code, answer: error.toBody() });
    }
    renderHookError(res, error);
  }

  const stages: RequestHandler[] = [begin, checkCredentials, routeAndMethod, authenticate, refuseWhileShuttingDown];
  if (deps.rateLimiter) stages.push(deps.rateLimiter);
  return stagePipeline(stages, serve, renderError);
}
