/**
 * What a verified request's signature covers as the id of its delivery (SPEC §7,
 * §10): a header (Standard Webhooks' `webhook-id`, Svix's `svix-id`) or a field of
 * the signed body (Stripe's event `id`, Slack's Events API `event_id`). The sender's
 * retries repeat it, and a replayer cannot change it without breaking the signature,
 * so it keys idempotency; a body id only when the mapping names no `idempotencyKey`.
 * Schemes that sign no id (github, shopify, hmac-sha256, token-header) have none.
 *
 * @example
 *   signedIdsOf("stripe", headers, { id: "evt_1", type: "invoice.paid" })  // { bodyId: "evt_1" }
 */
import type { VerifyScheme } from "./types";
import { signedMessageIdHeader } from "./standard-webhooks";

export interface SignedIds {
  /** The header the signature covers as the message id. */
  header?: string;
  /** The id field of the signed body, when present and a non-empty string. */
  bodyId?: string;
}

/** The body field each scheme's sender puts its event id in. */
const BODY_ID_FIELD: Partial<Record<VerifyScheme, string>> = { stripe: "id", slack: "event_id" };

export function signedIdsOf(scheme: VerifyScheme, headers: Readonly<Record<string, string>>, payload: unknown): SignedIds {
  if (scheme === "standard-webhooks") return { header: signedMessageIdHeader(headers) };
  const field = BODY_ID_FIELD[scheme];
  if (field === undefined || typeof payload !== "object" || payload === null || Array.isArray(payload)) return {};
  const value = (payload as Record<string, unknown>)[field];
  return typeof value === "string" && value !== "" ? { bodyId: value } : {};
}
