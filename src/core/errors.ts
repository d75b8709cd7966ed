/**
 * The one catalogue of coded errors. Every error the HTTP surface can return is
 * declared here with its status and a default message; handlers create them with
 * `hookError(code, message?, details?)` and one error renderer turns them into
 * `{ ok: false, code, error, details? }`.
 */

export const ERROR_CATALOGUE = {
  unauthorized: { status: 401, message: "A valid hook token is required (Authorization: Bearer <token>)." },
  too_many_requests: { status: 429, message: "Too many requests from this client; retry later." },
  method_not_allowed: { status: 405, message: "Only POST is allowed on this route." },
  payload_too_large: { status: 413, message: "The request body is larger than hooks.maxBodyBytes allows." },
  request_timeout: { status: 408, message: "The request body did not arrive in time." },
  unsupported_media_type: { status: 415, message: "The body must be application/json or application/x-www-form-urlencoded." },
  invalid_json: { status: 400, message: "The body must be a JSON object." },
  invalid_payload: { status: 400, message: "The request body is invalid." },
  model_not_allowed: { status: 400, message: "The requested model is not in the allowed models list." },
  not_found: { status: 404, message: "No hook matches this path." },
  query_token_not_allowed: { status: 400, message: "The token must be sent in a header; ?token= is disabled (hooks.allowQueryToken is false)." },
  idempotency_key_reused: { status: 422, message: "This idempotency key was already used with a different request body." },
  overloaded: { status: 503, message: "Too many runs are queued; retry later." },
  shutting_down: { status: 503, message: "The gateway is shutting down; retry later." },
  storage_unavailable: { status: 503, message: "The request could not be stored (the gateway's storage failed, e.g. a full disk), so nothing of it took effect; retry later." },
  transform_failed: { status: 500, message: "The hook's transform failed." },
  internal_error: { status: 500, message: "Internal error." },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One problem with one field, e.g. `{ field: "text", message: "text must be a non-empty string" }`. */
export interface ErrorDetail {
  field: string;
  message: string;
}

export class HookError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetail[];
  /** Extra response headers, e.g. Retry-After. */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    opts: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message ?? ERROR_CATALOGUE[code].message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "HookError";
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.details = opts.details;
    this.headers = opts.headers;
  }

  /** The public body. Never includes the cause or a stack. */
  toBody(): { ok: false; code: ErrorCode; error: string; details?: ErrorDetail[] } {
    return this.details && this.details.length > 0
      ? { ok: false, code: this.code, error: this.message, details: this.details }
      : { ok: false, code: this.code, error: this.message };
  }
}

export function hookError(
  code: ErrorCode,
  message?: string,
  opts?: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown },
): HookError {
  return new HookError(code, message, opts);
}

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
