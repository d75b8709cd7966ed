/**
 * The request as the framework-free core sees it (SPEC §4.1 "One accept path"):
 * built once, at the boundary, by `hookRequestOf` — for a live request (the node-level
 * handler, src/intake/io/node-handler.ts), a replay (a stored delivery) and the dry run
 * alike — and read by every stage. Its `route` carries the hook's one name
 * (src/core/hook-name.ts); no stage works it out again from the URL.
 */
import { hookErrors, HookError } from "../core/errors";
import { outcome, type Outcome } from "../core/outcome";
import type { HookResponse } from "../core/ports";
import { hookName, parseHookRoute, type ParsedHookRoute } from "../core/hook-route";
import { redactText } from "../host-contract/redaction";
import { pathBelow } from "../host-contract/route-path";
import { flatQuery } from "./request-input";
import type { KeyNamer } from "../host-contract/config-keys";

export interface HookRequest {
  /** `X-Request-Id` (given or generated); also the delivery's request id in the run's source. */
  requestId: string;
  method: string;
  /** The route of the one hook name, or the 404 of a path that names none. */
  route: ParsedHookRoute;
  /** The hook's one name as logs, metrics and the ledger label it (`runs`/`deliveries` for those routes); undefined when the path names none. */
  hook?: string;
  /** Lower-cased headers, repeated ones joined with ", " (credentials included: the mapping engine strips them). */
  headers: Record<string, string>;
  /** Query parameters, first value of each (the token included: the mapping engine strips it). */
  query: Record<string, string>;
  /** The URL as received, path and query (only the credential check reads it). */
  rawUrl: string;
  /** The URL with every credential-named query parameter redacted: what logs, templates and the ledger see. */
  url: string;
  /** The client key (socket address, or the trusted proxy's report). */
  client: string;
}

/** A request as it arrived (live) or was stored (replay), or as the dry run poses it. */
export interface RequestLine {
  requestId: string;
  method: string;
  /** The URL as received: origin form (`/hooks/x?a=1`) or absolute form (`http://host/hooks/x`, from a forward proxy). */
  url: string;
  /** Lower-cased, flat (src/intake/request-input.ts). */
  headers: Record<string, string>;
  /** The client key (src/intake/client-key.ts). */
  client: string;
}

/** The HookRequest of a request line: its route (the hook's one name) from the path below `hooksPath`, its query, its redacted URL. */
export function hookRequestOf(line: RequestLine, hooksPath: string): HookRequest {
  const below = pathBelow(hooksPath, line.url);
  const route: ParsedHookRoute = below === undefined ? { ok: false, error: hookErrors.notBelowHooksPath({ hooksPath }) } : parseHookRoute(below, hooksPath);
  return {
    requestId: line.requestId,
    method: line.method,
    route,
    ...(route.ok ? { hook: hookName(route.route) } : {}),
    headers: line.headers,
    query: flatQuery(line.url),
    rawUrl: line.url,
    url: redactText(line.url),
    client: line.client,
  };
}

/** What the core answers: the response to write and the one outcome every reader reads. */
export interface Answer extends HookResponse {
  /** A `text/plain` body (a Meta challenge) instead of JSON. */
  text?: string;
  outcome: Outcome;
}

/** The answer of a refusal at `stage`. */
export function refusal(error: HookError, stage: Outcome["stage"], authenticated: boolean, extra: Partial<Outcome> = {}): Answer {
  return {
    status: error.status,
    body: error.toBody(),
    ...(error.headers ? { headers: error.headers } : {}),
    outcome: outcome({ kind: "refused", stage, authenticated, code: error.code, ...extra }),
  };
}

/** The answer with the plugin's config keys in its `error` sentence (and its details' messages) named by `keys`. */
export function answerNamingKeys(answer: Answer, keys: KeyNamer): Answer {
  const body = answer.body as { error?: unknown; details?: unknown } | undefined;
  if (body === null || typeof body !== "object" || typeof body.error !== "string") return answer;
  const details = Array.isArray(body.details)
    ? body.details.map((d: { message?: unknown }) => (typeof d?.message === "string" ? { ...d, message: keys(d.message) } : d))
    : undefined;
  return { ...answer, body: { ...body, error: keys(body.error), ...(details ? { details } : {}) } };
}
