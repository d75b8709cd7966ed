/**
 * Idempotency keys (SPEC §7): the first of `Idempotency-Key`, `webhook-id`
 * (Standard Webhooks), `svix-id` or `X-GitHub-Delivery` that is present.
 */
import type { RequestHeaders } from "../request-input";
import { err, hookErrors, ok, type Result } from "../../core/errors";
import { fillTemplate } from "../../host-contract/error-catalogue";

/** Headers searched, in order of preference. */
export const IDEMPOTENCY_HEADERS = ["idempotency-key", "webhook-id", "svix-id", "x-github-delivery"] as const;

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const PRINTABLE_KEY = /^[\x21-\x7e]+$/;
/** The rule a malformed key breaks (a `details` sentence). */
const KEY_RULE = "{header} must be 1 to {maxLength} printable ASCII characters without spaces";

export interface IdempotencyKey {
  header: (typeof IDEMPOTENCY_HEADERS)[number];
  key: string;
}

/** The key and the header it came from; an over-long or non-printable key is a 400. */
export function extractIdempotencyKey(headers: RequestHeaders): Result<IdempotencyKey | undefined> {
  for (const header of IDEMPOTENCY_HEADERS) {
    const raw = headers[header];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (!value) continue;
    if (value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !PRINTABLE_KEY.test(value)) {
      const rule = fillTemplate(KEY_RULE, { header, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH });
      return err(hookErrors.invalidField({ subject: "request", problem: rule }, { details: [{ field: header, message: rule }] }));
    }
    return ok({ header, key: value });
  }
  return ok(undefined);
}
