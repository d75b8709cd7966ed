/**
 * Shared joi settings and the translation of joi errors into the catalogue's
 * `invalid_payload` / `model_not_allowed` / `channel_unavailable` errors: every problem listed in
 * `details` as `{ field, message }`, one sentence each naming the field and rule.
 */
import type Joi from "joi";
import { hookErrors, type ErrorDetail, type HookError } from "../core/errors";
import { VALIDATION_OPTIONS } from "../config/joi-builders";

/** The project's joi options, plus: unknown request fields ignored, lists of valid values unbracketed. */
export const REQUEST_VALIDATION_OPTIONS: Joi.ValidationOptions = {
  ...VALIDATION_OPTIONS,
  allowUnknown: true,
  errors: { wrap: { label: false, array: false } },
};

/** Message templates shared by every field (`{#label}` is the field name). */
export const BASE_MESSAGES: Joi.LanguageMessages = {
  "object.base": "the body must be a JSON object",
  "any.required": "{#label} is required",
  "string.base": "{#label} must be a string",
  "string.empty": "{#label} must not be empty",
  "string.max": "{#label} must be at most {#limit} characters long",
  "any.only": "{#label} must be one of: {#valids}",
  "boolean.base": "{#label} must be a boolean (true or false)",
  "number.base": "{#label} must be a number",
  "number.infinity": "{#label} must be a finite number",
  "number.greater": "{#label} must be greater than {#limit}",
  "number.max": "{#label} must be at most {#limit}",
};

/** Detail type of a model outside an enforced allow-list. */
export const MODEL_NOT_ALLOWED = "model.notAllowed";

interface Problem extends ErrorDetail {
  type: string;
}

/** One problem per field (the first joi reports), in body order. */
export function toProblems(error: Joi.ValidationError): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const d of error.details) {
    const field = d.path.length > 0 ? d.path.join(".") : "body";
    if (seen.has(field)) continue;
    seen.add(field);
    out.push({ field, message: d.message, type: d.type });
  }
  return out;
}

/** True for the problem of a channel the host does not offer right now (the value set of `channel`). */
function isUnofferedChannel(p: Problem): boolean {
  return p.field === "channel" && p.type === "any.only";
}

/**
 * `model_not_allowed` when the model is the only problem, `channel_unavailable`
 * when a channel the host does not offer is (SPEC §4.2, §15: the message lists the
 * ones it offers), else `invalid_payload` listing every problem (those included).
 * `subject` names what was validated in the sentence ("request body", "action of
 * mapping github").
 */
export function validationError(problems: Problem[], subject = "request body"): HookError {
  const details: ErrorDetail[] = problems.map(({ field, message }) => ({ field, message }));
  if (problems.length === 1 && problems[0].type === MODEL_NOT_ALLOWED) {
    return hookErrors.modelNotAllowed({ problem: details[0].message }, { details });
  }
  if (problems.length === 1 && isUnofferedChannel(problems[0])) return hookErrors.channelUnavailable({ problem: details[0].message }, { details });
  if (details.length === 1) return hookErrors.invalidField({ subject, problem: details[0].message }, { details });
  return hookErrors.invalidFields({ subject, count: details.length, problems: details.map((d) => d.message).join("; ") }, { details });
}
