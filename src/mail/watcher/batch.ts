/**
 * Batching of parsed messages into posts, and the batch's idempotency key
 * (derived from the Message-IDs, so a re-sent batch is recognised by the gateway).
 */
import { createHash } from "node:crypto";
import type { MailBatchPayload, MailMessagePayload } from "./mail-payload";

/** A message together with the UID it came from. */
export interface UidMessage {
  uid: number;
  message: MailMessagePayload;
}

export interface MailBatch {
  /** UIDs in ascending order. */
  uids: number[];
  payload: MailBatchPayload;
  idempotencyKey: string;
}

/**
 * `mail-<sha256 of the Message-IDs, in UID order, joined by newlines>`.
 *
 * @example idempotencyKeyFor([{ id: "a@x" }]) // "mail-<64 hex chars>"
 */
export function idempotencyKeyFor(messages: Pick<MailMessagePayload, "id">[]): string {
  const digest = createHash("sha256").update(messages.map((m) => m.id).join("\n")).digest("hex");
  return `mail-${digest}`;
}

/** Builds one batch (payload + key) from messages in UID order. */
export function buildBatch(items: UidMessage[]): MailBatch {
  const sorted = [...items].sort((a, b) => a.uid - b.uid);
  const messages = sorted.map((i) => i.message);
  return { uids: sorted.map((i) => i.uid), payload: { source: "mail", messages }, idempotencyKey: idempotencyKeyFor(messages) };
}

/**
 * Splits messages (in UID order) into batches of at most `maxMessages` whose JSON
 * body stays within `maxBodyBytes`. A single message always forms a batch, even if
 * it alone is larger (the gateway then answers 413 and the batch is skipped).
 */
export function splitIntoBatches(items: UidMessage[], limits: { maxMessages: number; maxBodyBytes: number }): MailBatch[] {
  const sorted = [...items].sort((a, b) => a.uid - b.uid);
  const batches: MailBatch[] = [];
  let current: UidMessage[] = [];
  for (const item of sorted) {
    const candidate = [...current, item];
    const fits =
      candidate.length <= limits.maxMessages && Buffer.byteLength(JSON.stringify(buildBatch(candidate).payload)) <= limits.maxBodyBytes;
    if (fits || current.length === 0) {
      current = candidate;
    } else {
      batches.push(buildBatch(current));
      current = [item];
    }
  }
  if (current.length > 0) batches.push(buildBatch(current));
  return batches;
}
