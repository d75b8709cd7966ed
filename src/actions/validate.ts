/**
 * The action validators: direct `/wake` and `/agent` bodies and the raw actions
 * mappings produce all pass through here before dispatch (SPEC §4.3, §4.4, §6.1).
 */
import { err, hookErrors, type Result } from "../core/errors";
import type { RawAction } from "../core/ports";
import type { HookAction } from "../core/actions";
import { validateAgent } from "./validate-agent";
import { validateWake } from "./validate-wake";
import type { ValidationContext } from "./validation-context";

export { validateWake } from "./validate-wake";
export { validateAgent } from "./validate-agent";
export type { ValidationContext } from "./validation-context";

/** The rule an action's `kind` breaks (a `details` sentence, like joi's messages). */
const KIND_RULE = "kind must be one of: wake, agent";

/**
 * Validates a raw action by its `kind` (`wake` → §4.3 rules, `agent` → §4.4 rules,
 * including the model allow-list). Used for mapped outcomes and the mapping dry run;
 * `subject` names the action in the error sentence (default "action").
 *
 * @example validateAction({ kind: "wake", text: "ping" }, ctx)
 */
export function validateAction(raw: RawAction, ctx: ValidationContext, subject = "action"): Result<HookAction> {
  const kind = raw !== null && typeof raw === "object" ? (raw as { kind?: unknown }).kind : undefined;
  if (kind === "wake") return validateWake(raw, subject);
  if (kind === "agent") return validateAgent(raw, ctx, subject);
  return err(hookErrors.invalidField({ subject, problem: KIND_RULE }, { details: [{ field: "kind", message: KIND_RULE }] }));
}
