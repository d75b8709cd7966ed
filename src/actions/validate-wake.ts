/**
 * `/wake` fields (SPEC §4.3): `text` required and not blank, `mode` `now` |
 * `next-heartbeat` (default `now`). Unknown fields are ignored; nothing is coerced.
 */
import Joi from "joi";
import { ok, err, type Result } from "../core/errors";
import { WAKE_MODES, type WakeAction, type WakeMode } from "../core/actions";
import { fastWakeFields } from "./fast-fields";
import { BASE_MESSAGES, REQUEST_VALIDATION_OPTIONS, toProblems, validationError } from "./validation-errors";

/** A required string with at least one non-whitespace character. */
export function requiredText(): Joi.StringSchema {
  return Joi.string().required().pattern(/\S/).messages({
    "string.empty": "{#label} must not be empty or blank",
    "string.pattern.base": "{#label} must not be empty or blank",
  });
}

/** `now` | `next-heartbeat`. */
export function wakeModeField(): Joi.StringSchema {
  return Joi.string().valid(...WAKE_MODES);
}

const wakeSchema = Joi.object({
  text: requiredText(),
  mode: wakeModeField(),
}).messages(BASE_MESSAGES);

/**
 * Validates a `/wake` body (or a mapped wake action's fields). `subject` names
 * what is validated in the error sentence.
 *
 * @example validateWake({ text: "disk full" }) // ok: { kind: "wake", text: "disk full", mode: "now" }
 */
export function validateWake(raw: unknown, subject = "request body"): Result<WakeAction> {
  const fast = fastWakeFields(raw);
  if (fast) return ok({ kind: "wake", text: fast.text.trim(), mode: fast.mode ?? "now" });
  return validateWakeWithSchema(raw, subject);
}

/** `validateWake` through joi alone (what the fast path must agree with; the path of every invalid body). */
export function validateWakeWithSchema(raw: unknown, subject = "request body"): Result<WakeAction> {
  const { error, value } = wakeSchema.validate(raw, REQUEST_VALIDATION_OPTIONS);
  if (error) return err(validationError(toProblems(error), subject));
  const v = value as { text: string; mode?: WakeMode };
  return ok({ kind: "wake", text: v.text.trim(), mode: v.mode ?? "now" });
}
