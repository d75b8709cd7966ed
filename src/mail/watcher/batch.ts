/**
 * Batching of parsed messages into posts, and the batch's idempotency key
 * (derived from the Message-IDs, so a re-sent batch is recognised by the gateway).
 */
import { createHash } from "node:crypto";
import type { MailBatchPayload, MailMessagePayload } from "./mail-payload";
import { truncateUtf8 } from "./text-bounds";

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
  const digest = createHash("sha256")
    .update(messages.map((m) => m.id).join("\n"))
    .digest("hex");
  return `mail-${digest}`;
}

/** Builds one batch (payload + key) from messages in UID order. */
export function buildBatch(items: UidMessage[]): MailBatch {
  const sorted = [...items].sort((a, b) => a.uid - b.uid);
  const messages = sorted.map((i) => i.message);
  return { uids: sorted.map((i) => i.uid), payload: { source: "mail", messages }, idempotencyKey: idempotencyKeyFor(messages) };
}

const batchBytes = (items: UidMessage[]): number => Buffer.byteLength(JSON.stringify(buildBatch(items).payload));

/**
 * A message whose batch alone is over `maxBodyBytes`, with its body (then its
 * snippet) cut, ending "…", until it fits: posted whole, the gateway would refuse
 * it (413) and the watcher skip it, losing the message. Cutting k bytes of text
 * shrinks the JSON by at least k bytes (escapes only add), so one cut per field suffices.
 */
function fitAlone(item: UidMessage, maxBodyBytes: number): UidMessage {
  let message = item.message;
  for (const field of ["body", "snippet"] as const) {
    const over = batchBytes([{ uid: item.uid, message }]) - maxBodyBytes;
    const text = message[field];
    if (over <= 0 || text === undefined) continue;
    message = { ...message, [field]: truncateUtf8(text, Math.max(0, Buffer.byteLength(text) - over)) };
  }
  return { uid: item.uid, message };
}

/**
 * Splits messages (in UID order) into batches of at most `maxMessages` whose JSON
 * body stays within `maxBodyBytes`. A single message always forms a batch; one
 * that alone is larger has its body cut to fit (fitAlone).
 */
export function splitIntoBatches(items: UidMessage[], limits: { maxMessages: number; maxBodyBytes: number }): MailBatch[] {
  const sorted = [...items].sort((a, b) => a.uid - b.uid);
  const batches: MailBatch[] = [];
  let current: UidMessage[] = [];
  for (const item of sorted) {
    const candidate = [...current, item];
    const fits = candidate.length <= limits.maxMessages && batchBytes(candidate) <= limits.maxBodyBytes;
    if (fits) {
      current = candidate;
    } else {
      if (current.length > 0) batches.push(buildBatch(current));
      current = [fitAlone(item, limits.maxBodyBytes)];
    }
  }
  if (current.length > 0) batches.push(buildBatch(current));
  return batches;
}
