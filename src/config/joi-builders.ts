/**
 * Small joi builders shared by the config schemas, so every bound and pattern
 * comes from src/config/rules.ts (the same values plugin.json declares).
 */
import Joi from "joi";
import { MAX_LENGTHS, PATTERN_RULES, REGEXES, type Bound, type PatternName } from "./rules";

/**
 * How every joi schema of the project validates: collect every problem, never
 * convert types (`"true"` is not a boolean, `"5"` not a number), labels unquoted.
 * The config schemas use it as is; request validation (src/actions/validation-errors.ts)
 * adds what requests need.
 */
export const VALIDATION_OPTIONS: Joi.ValidationOptions = {
  abortEarly: false,
  convert: false,
  errors: { wrap: { label: false } },
};

/** A number within `bound` (integer when the bound says so). */
export function boundedNumber(bound: Bound): Joi.NumberSchema {
  // unsafe(): a huge number breaks the bound ("must be at most …"), as a JSON Schema validator says.
  let s = Joi.number().unsafe();
  if (bound.integer) s = s.integer();
  s = bound.exclusiveMin ? s.greater(bound.min) : s.min(bound.min);
  return s.max(bound.max);
}

/** A string that must match the named pattern(s); the rule text comes from PATTERN_RULES. */
export function patterned(...names: PatternName[]): Joi.StringSchema {
  let s = Joi.string();
  for (const name of names) s = s.pattern(REGEXES[name], { name: PATTERN_RULES[name] });
  return s;
}

/** A non-blank single line of at most `max` characters. */
export function line(max: number = MAX_LENGTHS.generic): Joi.StringSchema {
  return patterned("line").max(max);
}

/** A template: non-blank, may span lines. */
export function template(): Joi.StringSchema {
  return patterned("notBlank").max(MAX_LENGTHS.template);
}

/** `{ "env": "NAME" }` or `{ "file": "path" }` (exactly one of them). */
export function secretRef(): Joi.ObjectSchema {
  return Joi.object({
    env: patterned("envName"),
    file: line(),
  }).xor("env", "file");
}

/** A plain-text token (≥ 16 printable characters after trimming) or a secret reference. */
export function tokenSource(): Joi.AlternativesSchema {
  return Joi.alternatives().conditional(Joi.string().allow(""), {
    then: patterned("tokenLength", "tokenCharset"),
    otherwise: secretRef(),
  });
}

/** A secret other than the hook token: plain text (a non-blank line) or a secret reference. */
export function secretSource(): Joi.AlternativesSchema {
  return Joi.alternatives().conditional(Joi.string(), { then: line(), otherwise: secretRef() });
}

/** One secret, or a non-empty list of them (rotation: any one verifies). */
export function secretSources(): Joi.AlternativesSchema {
  return Joi.alternatives().conditional(Joi.array(), { then: Joi.array().items(secretSource()).min(1).max(MAX_SECRETS), otherwise: secretSource() });
}

/** At most this many secrets in one rotation list. */
export const MAX_SECRETS = 10;
