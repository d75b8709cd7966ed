/**
 * Turns ajv validation errors into "<dotted key> <rule>" sentences, so every
 * config problem names the key (e.g. `gateway.port must be integer`).
 *
 * A regular expression is no rule a user can act on: a schema states what its
 * `pattern` (or `required`, `format`, `not`, `const`) means with an `x-rule`
 * annotation on the same node — `{ "pattern": "^\\S*:$", "x-rule": "must end with ':'" }`
 * — and that sentence is used instead of ajv's message. It needs ajv's
 * `verbose` option (the error then carries its schema node); see createRuleAjv.
 */
import Ajv, { type ErrorObject, type Options } from "ajv";

/** Annotation keyword holding the human rule of a node's non-obvious keyword. */
export const RULE_ANNOTATION = "x-rule";

/** Keywords whose ajv message means little to a user; an `x-rule` on their node replaces it. */
const ANNOTATED_KEYWORDS: ReadonlySet<string> = new Set(["pattern", "required", "format", "not", "const"]);

/** An ajv instance that reports schema nodes with errors and knows the `x-rule` annotation. */
export function createRuleAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ ...options, verbose: true });
  ajv.addKeyword({ keyword: RULE_ANNOTATION, schemaType: "string" });
  return ajv;
}

/** The `x-rule` of the failing keyword's node, when the schema gives one. */
function annotatedRule(e: ErrorObject): string | undefined {
  if (!ANNOTATED_KEYWORDS.has(e.keyword)) return undefined;
  const node = e.parentSchema as Record<string, unknown> | undefined;
  const rule = node?.[RULE_ANNOTATION];
  return typeof rule === "string" && rule.trim() !== "" ? rule.trim() : undefined;
}

/** `/a/0/b` under `root` → `root.a[0].b`. */
export function keyOf(root: string, instancePath: string): string {
  let key = root;
  for (const raw of instancePath.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(part)) key += `[${part}]`;
    else key += key === "" ? part : `.${part}`;
  }
  return key;
}

export interface KeyedProblem {
  key: string;
  rule: string;
}

/** One problem per ajv error, most specific key first. */
export function describeAjvError(root: string, e: ErrorObject): KeyedProblem {
  const key = keyOf(root, e.instancePath);
  const p = e.params as Record<string, unknown>;
  const join = (k: string) => (key === "" ? k : `${key}.${k}`);
  const annotated = annotatedRule(e);
  switch (e.keyword) {
    case "required":
      return { key: join(String(p.missingProperty)), rule: annotated ?? "is required" };
    case "additionalProperties":
      return { key: join(String(p.additionalProperty)), rule: "is not a known key" };
    case "type":
      return { key, rule: `must be ${Array.isArray(p.type) ? p.type.join(" or ") : String(p.type)}` };
    case "enum":
      return { key, rule: `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` };
    case "const":
      return { key, rule: `must be ${JSON.stringify(p.allowedValue)}` };
    case "minLength":
      return { key, rule: Number(p.limit) === 1 ? "must not be empty" : `must be at least ${String(p.limit)} characters` };
    case "maxLength":
      return { key, rule: `must be at most ${String(p.limit)} characters long` };
    case "minItems":
      return { key, rule: `must contain at least ${String(p.limit)} ${Number(p.limit) === 1 ? "entry" : "entries"}` };
    case "maxItems":
      return { key, rule: `must contain at most ${String(p.limit)} ${Number(p.limit) === 1 ? "entry" : "entries"}` };
    case "uniqueItems":
      return { key: `${key}[${Math.max(Number(p.i), Number(p.j))}]`, rule: "repeats an earlier entry" };
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return { key, rule: `must be ${String(p.comparison)} ${String(p.limit)}` };
    default:
      return { key, rule: annotated ?? e.message ?? `is invalid (${e.keyword})` };
  }
}

/** The first problem of a failed validation (ajv puts the deepest errors first with allErrors off). */
export function firstProblem(root: string, errors: ErrorObject[] | null | undefined): KeyedProblem {
  const list = errors ?? [];
  const pick = list.find((e) => e.keyword !== "anyOf" && e.keyword !== "oneOf" && e.keyword !== "if") ?? list[0];
  if (!pick) return { key: root, rule: "is invalid" };
  return describeAjvError(root, pick);
}
