/**
 * The idempotency key of a request: its idempotency header (idempotency-key.ts),
 * else the key the matching mapping's `idempotencyKey` template renders (SPEC §6.1),
 * e.g. `{{ payload.id }}` for Stripe, which sends its event id only in the body.
 * A rendered key that is not 1–255 printable ASCII characters is replaced by its
 * SHA-256 (hex): the sender cannot change what a template makes of its payload, so
 * it is not refused.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { ok, type Result } from "../../core/errors";
import type { MappedHookInput, MappedHookResolver } from "../../core/ports";
import { extractIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH, PRINTABLE_KEY } from "./idempotency-key";

export interface RequestIdempotencyKey {
  /** The header it came from, or `mapping` for a rendered template. */
  from: string;
  key: string;
}

/** `input` is given for mapped hooks only (direct hooks have no template). */
export function requestIdempotencyKey(
  headers: IncomingHttpHeaders,
  input: MappedHookInput | undefined,
  resolver: MappedHookResolver | undefined,
): Result<RequestIdempotencyKey | undefined> {
  const fromHeader = extractIdempotencyKey(headers);
  if (!fromHeader.ok) return fromHeader;
  if (fromHeader.value) return ok({ from: fromHeader.value.header, key: fromHeader.value.key });
  const rendered = input && resolver?.idempotencyKey?.(input);
  if (!rendered) return ok(undefined);
  const key = rendered.length <= MAX_IDEMPOTENCY_KEY_LENGTH && PRINTABLE_KEY.test(rendered) ? rendered : `sha256:${createHash("sha256").update(rendered).digest("hex")}`;
  return ok({ from: "mapping", key });
}
