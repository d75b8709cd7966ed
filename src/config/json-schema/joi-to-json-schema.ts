/**
 * Converts the joi schema of the `hooks` section (its `describe()` output) to the
 * draft-07 JSON Schema a host validates with before running plugin code. joi is
 * the one source of the rules; plugin.json#configSchema is this converter's
 * output, written by `npm run generate` (scripts/generate-config-schema.ts).
 *
 * Only the joi features the config schemas use are converted; anything else
 * throws, naming the key, so a new joi rule cannot be dropped silently. Words a
 * user reads travel with the schema as `x-rule` annotations: each pattern's rule
 * (PATTERN_RULES), the conditional "is required when …" sentences and the
 * per-key type sentences of src/config/problems.ts (OVERRIDES), and the
 * "must have one of / only one of" of a `{ env } | { file }` reference.
 *
 * @example
 *   joiToJsonSchema(hooksSectionSchema, ["hooks"]).properties.maxBodyBytes
 *   // { default: 262144, type: "integer", minimum: 1, maximum: 67108864 }
 */
import type Joi from "joi";
import { RULE_ANNOTATION, RULES } from "../../host-contract/config-rules";
import { describeCached, overrideFor, pathShape, type Description } from "../problems";
import { PATTERN_RULES, PATTERNS, REGEXES, type PatternName } from "../rules";

export type JsonSchema = { [keyword: string]: unknown };
type Path = Array<string | number>;

/** joi flags the converter understands (anything else is refused). */
const KNOWN_FLAGS = new Set(["default", "description", "presence", "only", "unknown", "unsafe"]);

class UnsupportedJoi extends Error {
  constructor(path: Path, what: string) {
    super(`cannot convert ${pathShape(path)} to JSON Schema: ${what}`);
    this.name = "UnsupportedJoi";
  }
}

/** The JSON Schema of `schema`; `path` names its place in the config (for sentences and errors). */
export function joiToJsonSchema(schema: Joi.Schema, path: Path): JsonSchema {
  return convert(describeCached(schema), path);
}

function convert(node: Description, path: Path): JsonSchema {
  for (const flag of Object.keys(node.flags ?? {})) {
    if (!KNOWN_FLAGS.has(flag)) throw new UnsupportedJoi(path, `flag "${flag}"`);
  }
  switch (node.type) {
    case "object":
      return objectSchema(node, path);
    case "array":
      return arraySchema(node, path);
    case "string":
      return stringSchema(node, path);
    case "number":
      return numberSchema(node, path);
    case "boolean":
      if (node.flags?.only === true) throw new UnsupportedJoi(path, "boolean valid()");
      return withTypeRule({ ...common(node), type: "boolean" }, path, "boolean");
    case "alternatives":
      return alternativesSchema(node, path);
    default:
      throw new UnsupportedJoi(path, `type "${String(node.type)}"`);
  }
}

/** description and default (object defaults are joi's "fill in the nested defaults", not a value). */
function common(node: Description): JsonSchema {
  const out: JsonSchema = {};
  const flags = node.flags ?? {};
  if (typeof flags.description === "string") out.description = flags.description;
  const dflt = flags.default;
  if (dflt !== undefined && !(dflt && typeof dflt === "object" && "special" in dflt)) out.default = structuredClone(dflt);
  return out;
}

/** Adds the sentence OVERRIDES gives for a wrong type at this key (e.g. a plain-text IMAP password). */
function withTypeRule(out: JsonSchema, path: Path, joiType: string): JsonSchema {
  const sentence = overrideFor(pathShape(path), `${joiType}.base`);
  if (sentence !== undefined) annotate(out, "type", sentence);
  return out;
}

/** Sets the node's rule for `keyword`: a string for a pattern alone, else one sentence per keyword. */
function annotate(out: JsonSchema, keyword: string, sentence: string): void {
  const current = out[RULE_ANNOTATION];
  if (current === undefined && keyword === "pattern") out[RULE_ANNOTATION] = sentence;
  else if (typeof current === "string") out[RULE_ANNOTATION] = { pattern: current, [keyword]: sentence };
  else out[RULE_ANNOTATION] = { ...((current as Record<string, string> | undefined) ?? {}), [keyword]: sentence };
}

function rulesOf(node: Description, path: Path, known: readonly string[]): Array<{ name: string; args: Record<string, unknown> }> {
  const rules = (node.rules ?? []).map((r) => ({ name: r.name, args: r.args ?? {} }));
  for (const r of rules) if (!known.includes(r.name)) throw new UnsupportedJoi(path, `${String(node.type)} rule "${r.name}"`);
  return rules;
}

function stringSchema(node: Description, path: Path): JsonSchema {
  const out: JsonSchema = { ...common(node), type: "string" };
  const rules = rulesOf(node, path, ["pattern", "max", "min"]);
  if (node.flags?.only === true) out.enum = allowed(node, path);
  if (!rules.some((r) => r.name === "min") && !allowsEmpty(node)) out.minLength = 1; // joi refuses "" unless allowed
  const patterns: JsonSchema[] = [];
  for (const r of rules) {
    if (r.name === "max") out.maxLength = r.args.limit;
    else if (r.name === "min") out.minLength = r.args.limit;
    else patterns.push(patternNode(r.args, path));
  }
  if (patterns.length === 1) Object.assign(out, patterns[0]);
  else if (patterns.length > 1) out.allOf = patterns;
  return withTypeRule(out, path, "string");
}

/** `{ pattern, x-rule }` from a joi pattern rule, which must be one of src/config/rules.ts. */
function patternNode(args: Record<string, unknown>, path: Path): JsonSchema {
  const regex = String(args.regex);
  const name = (Object.keys(PATTERNS) as PatternName[]).find((n) => String(REGEXES[n]) === regex);
  const rule = (args.options as { name?: unknown } | undefined)?.name;
  if (!name) throw new UnsupportedJoi(path, `pattern ${regex} is not one of PATTERNS in src/config/rules.ts`);
  if (rule !== PATTERN_RULES[name]) throw new UnsupportedJoi(path, `pattern ${name} must be named with PATTERN_RULES.${name}`);
  return { pattern: PATTERNS[name], [RULE_ANNOTATION]: rule };
}

function allowsEmpty(node: Description): boolean {
  return ((node as { allow?: unknown[] }).allow ?? []).includes("");
}

function allowed(node: Description, path: Path): unknown[] {
  const values = (node as { allow?: unknown[] }).allow;
  if (!values || values.length === 0) throw new UnsupportedJoi(path, "valid() without values");
  return [...values];
}

function numberSchema(node: Description, path: Path): JsonSchema {
  const rules = rulesOf(node, path, ["integer", "min", "max", "greater", "less"]);
  const out: JsonSchema = { ...common(node), type: rules.some((r) => r.name === "integer") ? "integer" : "number" };
  const keyword: Record<string, string> = { min: "minimum", max: "maximum", greater: "exclusiveMinimum", less: "exclusiveMaximum" };
  for (const r of rules) if (r.name !== "integer") out[keyword[r.name]!] = r.args.limit;
  if (node.flags?.only === true) out.enum = allowed(node, path); // valid(200, 202): without it, any number passed the host's check
  return withTypeRule(out, path, "number");
}

function arraySchema(node: Description, path: Path): JsonSchema {
  const out: JsonSchema = { ...common(node), type: "array" };
  const items = node.items ?? [];
  if (items.length !== 1) throw new UnsupportedJoi(path, "an array needs exactly one items() schema");
  out.items = convert(items[0]!, [...path, 0]);
  for (const r of rulesOf(node, path, ["unique", "min", "max"])) {
    if (r.name === "unique") out.uniqueItems = true;
    else out[r.name === "min" ? "minItems" : "maxItems"] = r.args.limit;
  }
  return withTypeRule(out, path, "array");
}

/** `alternatives().conditional(Joi.<type>(), { then, otherwise })` → if/then/else on the type. */
function alternativesSchema(node: Description, path: Path): JsonSchema {
  const matches = node.matches ?? [];
  const m = matches[0];
  const isType = m?.is?.type;
  // The condition is a bare type (a string condition may allow "", so that "" takes the string branch).
  const bare = m?.is !== undefined && Object.keys(m.is).every((k) => k === "type" || (k === "allow" && allowsEmpty(m.is!)));
  if (matches.length !== 1 || !m?.then || !m.otherwise || !isType || !bare) {
    throw new UnsupportedJoi(path, "only alternatives().conditional(<type>, { then, otherwise }) converts");
  }
  return { ...common(node), if: { type: isType }, then: convert(m.then, path), else: convert(m.otherwise, path) };
}

interface JoiWhen {
  ref?: { path?: string[] };
  is?: Description & { allow?: unknown[] };
  then?: Description;
  otherwise?: Description;
}

/** `object().pattern(REGEXES.<name>, value)` with no fixed keys → propertyNames + additionalProperties. */
function patternKeysSchema(node: Description, path: Path): JsonSchema {
  const patterns = node.patterns as Array<{ regex?: string; rule?: Description }>;
  const p = patterns[0];
  const name = (Object.keys(REGEXES) as PatternName[]).find((n) => String(REGEXES[n]) === p?.regex);
  if (patterns.length !== 1 || !p?.rule || !name || node.keys)
    throw new UnsupportedJoi(path, "only object().pattern(REGEXES.<name>, <schema>) without fixed keys converts");
  const out: JsonSchema = { ...common(node), type: "object", propertyNames: { pattern: PATTERNS[name], [RULE_ANNOTATION]: PATTERN_RULES[name] } };
  out.additionalProperties = convert(p.rule, [...path, "*"]);
  return withTypeRule(out, path, "object");
}

function objectSchema(node: Description, path: Path): JsonSchema {
  if (node.patterns) return patternKeysSchema(node, path);
  const out: JsonSchema = { ...common(node), type: "object" };
  if (node.flags?.unknown !== true) out.additionalProperties = false;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const constraints: JsonSchema[] = [];
  for (const [key, child] of Object.entries(node.keys ?? {})) {
    // when("<sibling>", …) is a condition of this object; an object-level when() stays with the child.
    const all = (child as { whens?: JoiWhen[] }).whens ?? [];
    const whens = all.filter((w) => w.ref);
    const own = all.filter((w) => !w.ref);
    const { whens: _handledHere, ...rest } = child as Description & { whens?: JoiWhen[] };
    const plain = own.length > 0 ? ({ ...rest, whens: own } as Description) : rest;
    properties[key] = convert(plain, [...path, key]);
    if (child.flags?.presence === "required") {
      if (overrideFor(pathShape([...path, key]), "any.required")) throw new UnsupportedJoi([...path, key], "an unconditional required with its own sentence");
      required.push(key);
    }
    for (const when of whens ?? []) constraints.push(siblingCondition(when, key, path));
  }
  if (required.length > 0) out.required = required;
  out.properties = properties;
  for (const when of (node as { whens?: JoiWhen[] }).whens ?? []) constraints.push(selfCondition(when, path));
  for (const dep of (node as { dependencies?: Array<{ rel: string; peers: string[] }> }).dependencies ?? []) {
    if (dep.rel !== "xor") throw new UnsupportedJoi(path, `dependency "${dep.rel}"`);
    constraints.push(...exactlyOneOf(dep.peers));
  }
  if (constraints.length === 1) Object.assign(out, constraints[0]);
  else if (constraints.length > 1) out.allOf = constraints;
  return withTypeRule(out, path, "object");
}

/** `key: X.when("sibling", { is: <value>, then: required })` → if sibling is the value, key is required. */
function siblingCondition(when: JoiWhen, key: string, path: Path): JsonSchema {
  const sibling = when.ref?.path;
  const values = when.is?.allow;
  if (!sibling || sibling.length !== 1 || !values || values.length !== 1 || when.otherwise || when.then?.flags?.presence !== "required") {
    throw new UnsupportedJoi([...path, key], 'only when("<sibling>", { is: <one value>, then: required }) converts');
  }
  return { if: { required: [sibling[0]], properties: { [sibling[0]!]: { const: values[0] } } }, then: requiredOf([key], path) };
}

/** `object.when(<object condition>, { then?, otherwise? })` → if/then/else on the object itself. */
function selfCondition(when: JoiWhen, path: Path): JsonSchema {
  if (when.ref || !when.is) throw new UnsupportedJoi(path, "only object-level when(<object condition>) converts");
  const out: JsonSchema = { if: condition(when.is, path) };
  if (when.then) out.then = requirement(when.then, path);
  if (when.otherwise) out.else = requirement(when.otherwise, path);
  return out;
}

/** A condition object (`Joi.object({ k: Joi.exist() | Joi.valid(v).required() }).unknown()`). */
function condition(is: Description, path: Path): JsonSchema {
  if (is.type !== "object" || is.flags?.unknown !== true) throw new UnsupportedJoi(path, "a when() condition must be an object with unknown()");
  const required: string[] = [];
  const properties: Record<string, JsonSchema> = {};
  for (const [key, k] of Object.entries(is.keys ?? {})) {
    if (k.flags?.presence === "required") required.push(key);
    const values = (k as { allow?: unknown[] }).allow;
    if (k.flags?.only === true && values?.length === 1) properties[key] = { const: values[0] };
    else if (k.flags?.only === true) throw new UnsupportedJoi([...path, key], "a condition on more than one value");
  }
  return Object.keys(properties).length > 0 ? { required, properties } : { required };
}

/** What a when() branch demands: required keys (`Joi.object({ k: Joi.required() })`) or a nested when(). */
function requirement(node: Description, path: Path): JsonSchema {
  const whens = (node as { whens?: JoiWhen[] }).whens;
  if (node.type === "any" && whens?.length === 1) return selfCondition(whens[0]!, path);
  const keys = Object.entries(node.keys ?? {});
  if (node.type !== "object" || keys.length === 0 || keys.some(([, k]) => k.flags?.presence !== "required")) {
    throw new UnsupportedJoi(path, "a when() branch may only require keys");
  }
  return requiredOf(
    keys.map(([k]) => k),
    path,
  );
}

/** `required` of keys under `path`, with the OVERRIDES sentence of a key that has one. */
function requiredOf(keys: string[], path: Path): JsonSchema {
  const sentences = keys.map((k) => overrideFor(pathShape([...path, k]), "any.required"));
  if (keys.length > 1 && sentences.some((s) => s !== undefined)) throw new UnsupportedJoi(path, "several conditionally required keys with their own sentences");
  return sentences[0] === undefined ? { required: keys } : { required: keys, [RULE_ANNOTATION]: sentences[0] };
}

/** joi's `xor(...peers)`: at least one (`must have one of`) and at most one (`must have only one of`). */
function exactlyOneOf(peers: string[]): JsonSchema[] {
  const pairs: string[][] = [];
  for (let i = 0; i < peers.length; i++) for (let j = i + 1; j < peers.length; j++) pairs.push([peers[i]!, peers[j]!]);
  // `type` keeps `not` from failing for a non-object (for which any `required` holds).
  const atMostOne = pairs.length === 1 ? { type: "object", required: pairs[0] } : { type: "object", anyOf: pairs.map((p) => ({ required: p })) };
  return [
    { anyOf: peers.map((p) => ({ required: [p] })), [RULE_ANNOTATION]: RULES.someOf(peers) },
    { not: atMostOne, [RULE_ANNOTATION]: RULES.onlyOneOf(peers) },
  ];
}
