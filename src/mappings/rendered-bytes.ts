/**
 * What `hooks.maxRenderedBytes` bounds (SPEC §9 "amplification is bounded"):
 * - every template one request renders — message, text, name, sessionKey, channel,
 *   to, model, idempotencyKey, event, the `response` body, in every forEach item —
 *   draws on one RenderBudget of that many UTF-8 bytes, and no string a rendering
 *   builds (a filter's output, an expression's text) may be longer than what is
 *   left: `{{ payload | json: 10 }}` stops as soon as it is (compile-template.ts);
 * - the messages an outcome carries, whichever mapping built them (a transform, a
 *   built-in or plugin preset), come to at most that many bytes (outcomeRenderedBytes).
 * Over it: 400 `render_too_large`, nothing accepted.
 */
import { hookErrors } from "../core/errors";
import type { MappedHookOutcome, RawAction } from "../core/ports";

/** One request's rendering allowance: the bytes its templates may still render. */
export interface RenderBudget {
  /** The allowance (`hooks.maxRenderedBytes`). */
  readonly max: number;
  /** Bytes left; a string longer than this in UTF-16 units is over it in UTF-8 bytes too. */
  left(): number;
  /** Counts a rendered field's UTF-8 bytes; throws the `render_too_large` HookError once over. */
  spend(text: string): void;
  /** Throws the `render_too_large` HookError (a rendering built more than is left). */
  refuse(): never;
}

/** @example const budget = renderBudget(config.maxRenderedBytes); template.render({ ...ctx, budget }); */
export function renderBudget(max: number): RenderBudget {
  let spent = 0;
  const refuse = (): never => {
    spent = Infinity; // once refused, every later rendering of the request is refused too
    throw hookErrors.renderTooLarge({ max });
  };
  return {
    max,
    left: () => Math.max(0, max - spent),
    spend(text) {
      spent += Buffer.byteLength(text, "utf8");
      if (spent > max) refuse();
    },
    refuse,
  };
}

/**
 * UTF-8 bytes of an action's message: `text` of a wake, `message` of an agent run — by its
 * kind, so the other field (a transform may set both) never stands in for it.
 */
export function messageBytes(raw: RawAction): number {
  const content = raw.kind === "wake" ? raw.text : raw.message;
  return typeof content === "string" ? Buffer.byteLength(content, "utf8") : 0;
}

/** The bytes of messages an outcome carries: its action's, or every batch item's together. */
export function outcomeRenderedBytes(outcome: MappedHookOutcome): number {
  if (outcome.kind === "action") return messageBytes(outcome.raw);
  if (outcome.kind === "batch") return outcome.items.reduce((n, item) => n + (item.raw ? messageBytes(item.raw) : 0), 0);
  return 0;
}
