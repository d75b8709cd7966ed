/**
 * Turns ajv validation errors into `<dotted key> <rule>` problems — every one of
 * them, sorted by key — worded with the table the plugin uses too
 * (src/host-contract/config-rules.ts): `gateway.port must be an integer`,
 * `hooks.tokn is not a known key (did you mean hooks.token?)`.
 *
 * A regular expression is no rule a user can act on: a schema states what its
 * `pattern` (or `required`, `format`, `not`, `const`, `anyOf`, `oneOf`) means
 * with an `x-rule` annotation on the same node, or gives one sentence per
 * keyword with an object (`{ "type": "must be a reference" }`); that sentence is
 * used instead of ajv's message. It needs ajv's `verbose` option (the error then
 * carries its schema node and data); see createRuleAjv.
 */
import Ajv, { type ErrorObject, type Options } from "ajv";
import { childKey, RULE_ANNOTATED_KEYWORDS, RULE_ANNOTATION, RULES, sortProblems, unknownKeyRule, type KeyedProblem } from "../../host-contract/config-rules";

export type { KeyedProblem };

/** An ajv instance that reports schema nodes and data with errors and knows the `x-rule` annotation. */
export function createRuleAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ ...options, verbose: true });
  ajv.addKeyword({ keyword: RULE_ANNOTATION, schemaType: ["string", "object"] });
  return ajv;
}

/** The `x-rule` sentence of the failing keyword's node, when the schema gives one. */
function annotatedRule(e: ErrorObject): string | undefined {
  const rule = (e.parentSchema as Record<string, unknown> | undefined)?.[RULE_ANNOTATION];
  let sentence: unknown;
  if (typeof rule === "string") sentence = RULE_ANNOTATED_KEYWORDS.includes(e.keyword) ? rule : undefined;
  else if (rule && typeof rule === "object") sentence = (rule as Record<string, unknown>)[e.keyword];
  return typeof sentence === "string" && sentence.trim() !== "" ? sentence.trim() : undefined;
}

/** `/a/0/b` under `root` → `root.a[0].b`. */
export function keyOf(root: string, instancePath: string): string {
  let key = root;
  for (const raw of instancePath.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(part)) key += `[${part}]`;
    else key = childKey(key, part);
  }
  return key;
}

/** A JSON value with object keys sorted, for comparing entries as uniqueItems does. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** Index of the first entry that repeats an earlier one. */
function firstRepeat(items: unknown, fallback: number): number {
  if (!Array.isArray(items)) return fallback;
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const c = canonical(items[i]);
    if (seen.has(c)) return i;
    seen.add(c);
  }
  return fallback;
}

/** One problem for one ajv error. `branches` are the errors of a failed anyOf/oneOf's alternatives. */
export function describeAjvError(root: string, e: ErrorObject, branches: readonly ErrorObject[] = []): KeyedProblem {
  // An error about a property's name (inside propertyNames) is about that property: name it.
  const key = e.propertyName === undefined ? keyOf(root, e.instancePath) : childKey(keyOf(root, e.instancePath), e.propertyName);
  const p = e.params as Record<string, unknown>;
  const annotated = annotatedRule(e);
  const limit = Number(p.limit);
  switch (e.keyword) {
    case "required":
      return { key: childKey(key, String(p.missingProperty)), rule: annotated ?? RULES.required() };
    case "additionalProperties": {
      const name = String(p.additionalProperty);
      const known = Object.keys(((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}) as object);
      return { key: childKey(key, name), rule: annotated ?? unknownKeyRule(key, name, known) };
    }
    case "uniqueItems":
      return { key: `${key}[${firstRepeat(e.data, Math.max(Number(p.i), Number(p.j)))}]`, rule: annotated ?? RULES.unique() };
  }
  if (annotated) return { key, rule: annotated };
  switch (e.keyword) {
    case "type":
      return { key, rule: RULES.type(Array.isArray(p.type) ? (p.type as string[]) : String(p.type).split(",")) };
    case "enum":
      return { key, rule: RULES.oneOf(p.allowedValues as unknown[], e.data) };
    case "const":
      return { key, rule: RULES.oneOf([p.allowedValue], e.data) };
    case "minLength":
      return { key, rule: RULES.minLength(limit) };
    case "maxLength":
      return { key, rule: RULES.maxLength(limit) };
    case "minItems":
      return { key, rule: RULES.minItems(limit) };
    case "maxItems":
      return { key, rule: RULES.maxItems(limit) };
    case "minimum":
      return { key, rule: RULES.atLeast(limit) };
    case "maximum":
      return { key, rule: RULES.atMost(limit) };
    case "exclusiveMinimum":
      return { key, rule: RULES.greaterThan(limit) };
    case "exclusiveMaximum":
      return { key, rule: RULES.lessThan(limit) };
    case "anyOf":
    case "oneOf":
      return { key, rule: alternativesRule(e, branches) };
    default:
      return { key, rule: e.message ?? `is invalid (${e.keyword})` };
  }
}

/** Without an x-rule: the union of the alternatives' types when only types failed, else ajv's words. */
function alternativesRule(e: ErrorObject, branches: readonly ErrorObject[]): string {
  const typesOnly = branches.length > 0 && branches.every((b) => b.keyword === "type" && b.instancePath === e.instancePath);
  if (!typesOnly) return e.message ?? `is invalid (${e.keyword})`;
  const types = branches.flatMap((b) => {
    const t = (b.params as { type?: unknown }).type;
    return Array.isArray(t) ? (t as string[]) : String(t).split(",");
  });
  return RULES.type([...new Set(types)]);
}

/**
 * Every problem of a failed validation (ajv with `allErrors` and `verbose`),
 * sorted by key: the failed alternatives of an anyOf/oneOf give way to the
 * anyOf/oneOf itself, `if` reports nothing of its own, and the patterns an empty
 * string fails are implied by its "must not be empty".
 */
export function describeAjvErrors(root: string, errors: readonly ErrorObject[] | null | undefined): KeyedProblem[] {
  // "property name must be valid" only repeats the error on the name it wraps (reported, naming the property).
  let list = (errors ?? []).filter((e) => e.keyword !== "if" && e.keyword !== "propertyNames");
  const combinators = list.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  const branchesOf = new Map<ErrorObject, ErrorObject[]>();
  for (const c of combinators) {
    const inside = (e: ErrorObject) => e.schemaPath.startsWith(`${c.schemaPath}/`);
    branchesOf.set(c, list.filter(inside));
    list = list.filter((e) => !inside(e));
  }
  const emptyStrings = new Set(list.filter((e) => e.keyword === "minLength" && e.data === "").map((e) => e.instancePath));
  list = list.filter((e) => !(emptyStrings.has(e.instancePath) && (e.keyword === "pattern" || e.keyword === "format")));
  if (list.length === 0 && (errors ?? []).length > 0) return [{ key: root, rule: "is invalid" }];
  return sortProblems(list.map((e) => describeAjvError(root, e, branchesOf.get(e))));
}

/** The first problem (in key order) of a failed validation. */
export function firstProblem(root: string, errors: readonly ErrorObject[] | null | undefined): KeyedProblem {
  return describeAjvErrors(root, errors)[0] ?? { key: root, rule: "is invalid" };
}
