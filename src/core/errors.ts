/**
 * The one catalogue of coded errors the hook endpoints answer with (SPEC §4.2).
 * Each entry is one distinct error: its public `code`, HTTP `status` and message
 * template (`{name}` placeholders). Call sites pass only the arguments:
 *
 * @example
 * hookErrors.bodyTooLarge({ limit: 1024 }) // 413 payload_too_large "The request body is larger than hooks.maxBodyBytes allows (1024 bytes)."
 * hookErrors.runNotStored({ cause: e })    // 500 internal_error; the cause goes to the log, never to the body
 *
 * One renderer turns a HookError into `{ ok: false, code, error, details? }`: its body is the hosts' one
 * shape (src/host-contract/json-response.ts), written by src/intake/io/render.ts.
 * Adding an error: docs/errors.md, "Adding an error".
 */
import { createErrorCatalogue, type FilledEntry } from "../host-contract/error-catalogue";
import { errorBody, type ErrorBody } from "../host-contract/json-response";

/** Every public code and its status (several entries may share one code). */
export const ERROR_STATUS = {
  unauthorized: 401,
  invalid_signature: 401,
  signature_expired: 401,
  too_many_requests: 429,
  forbidden: 403,
  method_not_allowed: 405,
  payload_too_large: 413,
  request_timeout: 408,
  unsupported_media_type: 415,
  invalid_json: 400,
  invalid_payload: 400,
  model_not_allowed: 400,
  agent_not_allowed: 400,
  channel_unavailable: 400,
  not_found: 404,
  delivery_not_found: 404,
  delivery_body_not_stored: 409,
  delivery_not_replayable: 409,
  bulk_replay_too_large: 400,
  bulk_replay_changed: 409,
  bulk_replay_expired: 409,
  invalid_request: 400,
  query_token_not_allowed: 400,
  idempotency_key_reused: 422,
  fan_out_too_large: 400,
  render_too_large: 400,
  overloaded: 503,
  shutting_down: 503,
  storage_unavailable: 503,
  not_configured: 503,
  transform_failed: 500,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A catalogue entry; `status` must be its code's status. `field`: the error is about that one field (see HookError.details). */
export type HookErrorEntry = {
  [C in ErrorCode]: { readonly code: C; readonly status: (typeof ERROR_STATUS)[C]; readonly message: string; readonly field?: string };
}[ErrorCode];

const ON_MAPPED = "send application/json, application/x-www-form-urlencoded, multipart/form-data or text/plain.";
const USE_ROUTES = "use {hooksPath}/wake, {hooksPath}/agent or a configured mapping.";

/** The catalogue. Names say what happened; several names may share a code. */
export const HOOK_ERROR_CATALOGUE = {
  // Authentication and throttling (§4.1 step 3)
  tokenMissing: { code: "unauthorized", status: 401, message: "A hook token is required: send it as Authorization: Bearer <token>." },
  tokenInvalid: { code: "unauthorized", status: 401, message: "The hook token is invalid." },
  signatureInvalid: { code: "invalid_signature", status: 401, message: "The request signature was refused: {reason}." },
  signatureExpired: { code: "signature_expired", status: 401, message: "The request signature has expired: {reason}." },
  queryTokenNotAllowed: {
    code: "query_token_not_allowed",
    status: 400,
    message: "The token must be sent in a header; ?token= is disabled (hooks.allowQueryToken is false).",
  },
  authThrottled: {
    code: "too_many_requests",
    status: 429,
    message: "Too many failed authentication attempts from this client (more than {maxFailures} in {windowSeconds} s); retry after {retryAfterSeconds} s.",
  },
  rateLimited: {
    code: "too_many_requests",
    status: 429,
    message: "Rate limit exceeded: at most {limit} requests per {windowSeconds} s per client (hooks.rateLimit); retry after {retryAfterSeconds} s.",
  },
  rateLimitedOnPath: {
    code: "too_many_requests",
    status: 429,
    message: "Rate limit exceeded: at most {limit} requests per {windowSeconds} s per client on {hookPath}; retry after {retryAfterSeconds} s.",
  },

  // Path and method (§4.1 steps 1, 2 and 5)
  notBelowHooksPath: { code: "not_found", status: 404, message: "No hook matches this path: it is not below {hooksPath}." },
  hooksPathItself: { code: "not_found", status: 404, message: "No hook at {hooksPath} itself; POST to {hooksPath}/wake, {hooksPath}/agent or a mapped hook." },
  hookPathUndecodable: { code: "not_found", status: 404, message: "No hook has this name: the path after {hooksPath}/ is not valid percent-encoded UTF-8." },
  hookPathRefused: { code: "not_found", status: 404, message: "No hook has this name: the path after {hooksPath}/ {rule}." },
  replayPathNotBelow: {
    code: "not_found",
    status: 404,
    message: "This delivery was recorded at a path that is not below hooks.path ({hooksPath}) today, so no hook of this gateway answers it.",
  },
  noHookMatches: { code: "not_found", status: 404, message: `No hook matches {hookPath}; ${USE_ROUTES}` },
  noHookMatchesThisPath: { code: "not_found", status: 404, message: `No hook matches this path; ${USE_ROUTES}` },
  runNotFound: { code: "not_found", status: 404, message: "No run with this id (unknown, or from before the run store was cleared)." },
  methodNotAllowedOnHook: { code: "method_not_allowed", status: 405, message: "Only {allowed} is allowed on this hook." },
  methodNotAllowedOnRunStatus: { code: "method_not_allowed", status: 405, message: "Only {allowed} is allowed on the run-status route." },
  methodNotAllowedOnLedger: { code: "method_not_allowed", status: 405, message: "Only {allowed} is allowed on {route}." },

  // Delivery ledger and run listing (§11)
  deliveryNotFound: {
    code: "delivery_not_found",
    status: 404,
    message: "No delivery with this id (unknown, or pruned from the ledger by hooks.ledger.retentionDays / maxEntries).",
  },
  deliveryBodyNotStored: {
    code: "delivery_body_not_stored",
    status: 409,
    message:
      "This delivery was recorded without its body (hooks.ledger.storeBodies was false, or the body was refused before it was read), so it cannot be replayed.",
  },
  deliveryRefusedAtAuthentication: {
    code: "delivery_not_replayable",
    status: 409,
    message: "This delivery was refused before it was authenticated ({code}), so it cannot be replayed: send it again with valid credentials instead.",
  },
  queryParameterInvalid: { code: "invalid_request", status: 400, message: "Query parameter {name} {rule}." },
  queryParameterUnknown: { code: "invalid_request", status: 400, message: "Unknown query parameter {name}; this route accepts {accepted}." },
  searchTooManyTerms: {
    code: "invalid_request",
    status: 400,
    field: "search",
    message: "Query parameter search has {terms} different terms and may have at most {max} (a term is a run of letters and digits: a.b.c is 3).",
  },
  // Bulk replay by filter (§11, §13): src/intake/bulk-replay.ts
  bulkReplayNeedsFilter: { code: "invalid_request", status: 400, message: "A bulk replay needs a filter: at least one of hook, status, since or search." },
  bulkReplayTooLarge: { code: "bulk_replay_too_large", status: 400, message: "The filter matches {count} deliveries; a bulk replay takes at most {max}." },
  bulkReplayChanged: {
    code: "bulk_replay_changed",
    status: 409,
    message: "The deliveries this filter matches are not the ones the preview counted ({previewed} then, {now} now); nothing was replayed: preview again.",
  },
  bulkReplayExpired: { code: "bulk_replay_expired", status: 409, message: "The preview has expired (valid {minutes} minutes, in the process that made it)." },
  ledgerUnreadable: {
    code: "storage_unavailable",
    status: 503,
    message: "The delivery ledger or the run store could not be read (the gateway's storage failed); retry later.",
  },

  // Body (§4.1 step 4)
  bodyTooLarge: { code: "payload_too_large", status: 413, message: "The request body is larger than hooks.maxBodyBytes allows ({limit} bytes)." },
  bodyIncomplete: { code: "request_timeout", status: 408, message: "The connection closed before the request body was complete." },
  bodyTimedOut: { code: "request_timeout", status: 408, message: "The request body did not arrive within {seconds} s." },
  bodyAlreadyConsumed: { code: "internal_error", status: 500, message: "The request body was consumed before the hook could read it." },
  contentEncodingNotSupported: {
    code: "unsupported_media_type",
    status: 415,
    message: "Content-Encoding {encoding} is not supported; send the body uncompressed.",
  },
  unnamedContentEncodingNotSupported: {
    code: "unsupported_media_type",
    status: 415,
    message: "This Content-Encoding is not supported; send the body uncompressed.",
  },
  mediaTypeNotSupported: { code: "unsupported_media_type", status: 415, message: `Content-Type {mediaType} is not supported on mapped hooks; ${ON_MAPPED}` },
  unnamedMediaTypeNotSupported: { code: "unsupported_media_type", status: 415, message: `This Content-Type is not supported on mapped hooks; ${ON_MAPPED}` },
  multipartFilePart: { code: "unsupported_media_type", status: 415, message: "The multipart part {part} is a file; mapped hooks accept form fields only." },
  unnamedMultipartFilePart: { code: "unsupported_media_type", status: 415, message: "A multipart part is a file; mapped hooks accept form fields only." },
  multipartMalformed: { code: "invalid_payload", status: 400, message: "The multipart/form-data body is malformed: {reason}." },
  multipartTooManyFields: { code: "invalid_payload", status: 400, message: "The multipart/form-data body has more than {max} fields." },
  multipartFieldTooLarge: { code: "payload_too_large", status: 413, message: "The multipart field {part} is larger than {max} bytes." },
  charsetNotUtf8: { code: "unsupported_media_type", status: 415, message: "The body must be encoded as UTF-8 (charset=utf-8)." },
  bodyNotUtf8: { code: "invalid_json", status: 400, message: "The body is not valid UTF-8." },
  bodyEmpty: { code: "invalid_json", status: 400, message: "The body is empty; send a JSON object." },
  jsonMalformed: { code: "invalid_json", status: 400, message: "{what} is not valid JSON." },
  jsonNotAnObject: { code: "invalid_json", status: 400, message: "{what} must be a JSON object, not {actual}." },
  jsonForbiddenKey: { code: "invalid_json", status: 400, message: "{what} contains a forbidden key (__proto__ or constructor.prototype)." },
  jsonTooDeep: { code: "invalid_json", status: 400, message: "{what} is nested deeper than {maxDepth} levels." },

  // Validation (§4.1 step 6): `problem` is a rule sentence, also listed in `details`
  invalidField: { code: "invalid_payload", status: 400, message: "Invalid {subject}: {problem}." },
  invalidFields: { code: "invalid_payload", status: 400, message: "Invalid {subject} ({count} problems): {problems}." },
  modelNotAllowed: { code: "model_not_allowed", status: 400, message: "{problem}." },
  agentNotAllowed: { code: "agent_not_allowed", status: 400, field: "agentId", message: "{problem}." },
  channelUnavailable: { code: "channel_unavailable", status: 400, field: "channel", message: "{problem}." },
  mailPushInvalid: { code: "invalid_payload", status: 400, message: "The mail push is invalid." },
  sessionKeyPrefixNotAllowed: {
    code: "invalid_payload",
    status: 400,
    field: "sessionKey",
    message: 'sessionKey must start with "hook:" or one of hooks.allowedSessionKeyPrefixes.',
  },
  sessionKeyIsMainSession: { code: "invalid_payload", status: 400, field: "sessionKey", message: "sessionKey must not address the main session." },
  idempotencyKeyReused: {
    code: "idempotency_key_reused",
    status: 422,
    message: "The idempotency key was already used on {scope} with a different request body; send a new key for a different request.",
  },

  // Fan-out and handshakes (§12)
  forEachNotArray: {
    code: "invalid_payload",
    status: 400,
    message: "forEach of mapping {mappingId} needs an array at payload.{path}, but the payload has {actual} there.",
  },
  fanOutTooLarge: {
    code: "fan_out_too_large",
    status: 400,
    message: "The payload has {count} items at payload.{path}; at most {max} are accepted per request (hooks.maxFanOut).",
  },
  renderTooLarge: {
    code: "render_too_large",
    status: 400,
    message: "The templates and messages of this request render to more than {max} bytes (hooks.maxRenderedBytes); nothing was accepted.",
  },
  handshakeRefused: { code: "forbidden", status: 403, message: "The verification request was refused: {reason}." },

  // Dispatch (§5, §7)
  overloaded: { code: "overloaded", status: 503, message: "Too many runs are queued (hooks.runs.maxQueued is {maxQueued}); retry later." },
  mainQueueFull: { code: "overloaded", status: 503, message: "The main session's event queue is full; retry later." },
  shuttingDown: { code: "shutting_down", status: 503, message: "The gateway is shutting down; retry later." },
  storageUnavailable: {
    code: "storage_unavailable",
    status: 503,
    message: "The request could not be stored (the gateway's storage failed, e.g. a full disk), so nothing of it took effect; retry later.",
  },
  notServing: { code: "shutting_down", status: 503, message: "The hooks service is not running (not started yet, or stopped); retry later." },
  notConfigured: {
    code: "not_configured",
    status: 503,
    message: "The hooks service did not start because of {keys} (the gateway's log names the problem); fix it and restart the gateway.",
  },
  runNotStored: { code: "internal_error", status: 500, message: "The run could not be stored, so it was not accepted; retry later." },
  transformFailed: { code: "transform_failed", status: 500, message: "The hook's transform failed." },
  internalError: { code: "internal_error", status: 500, message: "Internal error." },
} as const satisfies Record<string, HookErrorEntry>;

export type HookErrorName = keyof typeof HOOK_ERROR_CATALOGUE;

/** One problem with one field, e.g. `{ field: "text", message: "text must be a non-empty string" }`. */
export interface ErrorDetail {
  field: string;
  message: string;
}

/** What a call site may add besides the template's arguments. */
export interface HookErrorOptions {
  /** Problems per field (validation errors); an entry with `field` lists itself when none are given. */
  details?: ErrorDetail[];
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  /** The underlying failure: kept for the log, never rendered. */
  cause?: unknown;
}

export class HookError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetail[];
  /** Extra response headers, e.g. Retry-After. */
  readonly headers?: Record<string, string>;

  /** Made by `hookErrors.<name>(…)` only, so every message comes from the catalogue. */
  constructor(code: ErrorCode, message: string, opts: HookErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "HookError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = opts.details;
    this.headers = opts.headers;
  }

  /** The public body (the hosts' one shape, src/host-contract/json-response.ts). Never includes the cause or a stack. */
  toBody(): ErrorBody<ErrorCode, ErrorDetail> {
    return errorBody(this.code, this.message, this.details);
  }
}

function buildHookError({ entry, message }: FilledEntry<typeof HOOK_ERROR_CATALOGUE>, options: HookErrorOptions | undefined): HookError {
  const field: string | undefined = "field" in entry ? entry.field : undefined;
  const details = options?.details ?? (field === undefined ? undefined : [{ field, message }]);
  return new HookError(entry.code, message, { ...options, details });
}

/** One factory per catalogue entry: `hookErrors.<name>(args?, { details, headers, cause }?)`. */
export const hookErrors = createErrorCatalogue(HOOK_ERROR_CATALOGUE, buildHookError);

/** Tagged result for expected failures inside request handling. */
export type Result<T, E = HookError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

/** Thrown at activation for invalid configuration; message names the key and the rule. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}
