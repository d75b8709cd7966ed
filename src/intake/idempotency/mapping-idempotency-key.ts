/**
 * The idempotency key of a request: its idempotency header (idempotency-key.ts),
 * else the key the matching mapping's `idempotencyKey` template renders (SPEC §6.1),
 * e.g. `{{ payload.id }}` for Stripe, which sends its event id only in the body.
 * A rendered key that is not 1–255 printable ASCII characters is replaced by its
 * SHA-256 (hex): the sender cannot change what a template makes of its payload, so
 * it is not refused.
 */
import { createHash } from "node:crypto";
import type { RequestHeaders } from "../request-input";
import { ok, type Result } from "../../core/errors";
import type { MappingSelection } from "../../core/ports";
import type { SignedIds } from "../../safety/signatures/signed-ids";
import { extractIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH, PRINTABLE_KEY } from "./idempotency-key";

export interface RequestIdempotencyKey {
  /** The header it came from, `mapping` for a rendered template, `signed body` for the signed body's event id. */
  from: string;
  key: string;
  /** True when the signature covers it (a signed id header or body id): the sender's id of the event. */
  signed?: boolean;
}

/**
 * `selection` is the mapping a mapped hook matched (direct hooks have no template). On a
 * verified path (`verified`: what the signature covers as the delivery's id, if the
 * scheme signs one, safety/signatures/signed-ids.ts) what the signature covers comes
 * first — the signed id header, then the template, then the signed body's event id
 * (Stripe's `id`, Slack's `event_id`) — so a sender's retry is one delivery without
 * any `idempotencyKey`, and a captured request replayed with a new, unsigned
 * `Idempotency-Key` is still recognised as the same delivery.
 */
export function requestIdempotencyKey(
  headers: RequestHeaders,
  selection: Pick<MappingSelection, "idempotencyKey"> | undefined,
  verified?: SignedIds,
): Result<RequestIdempotencyKey | undefined> {
  const signedId = verified?.header;
  const signedValue = signedId === undefined ? undefined : headers[signedId];
  if (typeof signedValue === "string" && signedValue !== "") return ok({ from: signedId!, key: asKey(signedValue), signed: true });
  const rendered = () => {
    const r = selection?.idempotencyKey();
    return r ? ok({ from: "mapping", key: asKey(r) }) : undefined;
  };
  if (verified) {
    const fromTemplate = rendered();
    if (fromTemplate) return fromTemplate;
    if (verified.bodyId !== undefined) return ok({ from: "signed body", key: asKey(verified.bodyId), signed: true });
  }
  const fromHeader = extractIdempotencyKey(headers);
  if (!fromHeader.ok) return fromHeader;
  if (fromHeader.value) return ok({ from: fromHeader.value.header, key: fromHeader.value.key });
  return (verified ? undefined : rendered()) ?? ok(undefined);
}

/** A key as stored: itself when it is 1–255 printable ASCII characters, else its SHA-256. */
function asKey(value: string): string {
  return value.length <= MAX_IDEMPOTENCY_KEY_LENGTH && PRINTABLE_KEY.test(value) ? value : `sha256:${createHash("sha256").update(value).digest("hex")}`;
}
