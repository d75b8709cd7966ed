/**
 * Idempotency keys (SPEC §7): the first of `Idempotency-Key`, `webhook-id`
 * (Standard Webhooks), `svix-id` or `X-GitHub-Delivery` that is present.
 */
import type { IncomingHttpHeaders } from "node:http";
import { err, hookError, ok, type Result } from "../../core/errors";

/** Headers searched, in order of preference. */
export const IDEMPOTENCY_HEADERS = ["idempotency-key", "webhook-id", "svix-id", "x-github-delivery"] as const;

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const PRINTABLE = /^[\x21-\x7e]+$/;

export interface IdempotencyKey {
  header: (typeof IDEMPOTENCY_HEADERS)[number];
  key: string;
}

/** The key and the header it came from; an over-long or non-printable key is a 400. */
export function extractIdempotencyKey(headers: IncomingHttpHeaders): Result<IdempotencyKey | undefined> {
  for (const header of IDEMPOTENCY_HEADERS) {
    const raw = headers[header];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (!value) continue;
    if (value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !PRINTABLE.test(value)) {
      const message = `${header} must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters without spaces`;
      return err(hookError("invalid_payload", `Invalid request: ${message}.`, { details: [{ field: header, message }] }));
    }
    return ok({ header, key: value });
  }
  return ok(undefined);
}
