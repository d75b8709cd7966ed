/**
 * What `hooks.maxRenderedBytes` bounds (SPEC §9 "amplification is bounded"): the
 * UTF-8 bytes of the messages one request renders, across all its actions —
 * whichever mapping built them (templates, a transform, a built-in or plugin preset).
 */
import type { MappedHookOutcome, RawAction } from "../core/ports";

/** UTF-8 bytes of an action's message (`text` of a wake, `message` of an agent run). */
export function messageBytes(raw: RawAction): number {
  const content = (raw as { text?: unknown; message?: unknown }).text ?? (raw as { message?: unknown }).message;
  return typeof content === "string" ? Buffer.byteLength(content, "utf8") : 0;
}

/** The bytes of messages an outcome carries: its action's, or every batch item's together. */
export function outcomeRenderedBytes(outcome: MappedHookOutcome): number {
  if (outcome.kind === "action") return messageBytes(outcome.raw);
  if (outcome.kind === "batch") return outcome.items.reduce((n, item) => n + (item.raw ? messageBytes(item.raw) : 0), 0);
  return 0;
}
