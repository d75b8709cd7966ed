/**
 * Turns joi validation details into one line per problem, naming the key path
 * and the rule: `hooks.maxBodyBytes must be at least 1`. The words come from
 * the table the host uses too (src/host-contract/config-rules.ts), so the gateway,
 * checking plugin.json's schema, reports a problem exactly as joi does here.
 * Values are never echoed (a bad value may be a secret); only the rule is described.
 */
import type Joi from "joi";
import { problemLine, RULES, sortProblems, unknownKeyRule as sharedUnknownKeyRule, type KeyedProblem } from "../host-contract/config-rules";
import { PATTERN_RULES } from "./rules";

type Detail = Joi.ValidationErrorItem;
type Path = ReadonlyArray<string | number>;

/** `["hooks","mappings",0,"id"]` → `hooks.mappings[0].id`. */
export function formatKeyPath(path: Path): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out === "" ? seg : `.${seg}`;
  }
  return out === "" ? "config" : out;
}

/** The key path with array indices generalised: `hooks.mappings[].id`. */
export function pathShape(path: Path): string {
  return formatKeyPath(path.map((s) => (typeof s === "number" ? -1 : s))).replace(/\[-1\]/g, "[]");
}

const SECRET_REF = '{ "env": "NAME" } or { "file": "path" }';

/**
 * Rules that read better with their own sentence, keyed by path shape then joi type.
 * Keys starting with `mappings[]` match at any depth (configured and preset mappings).
 */
const OVERRIDES: Record<string, Record<string, string>> = {
  "hooks.token": {
    "any.required": "is required when hooks.enabled is true",
    "object.base": `must be a string of at least 16 characters, ${SECRET_REF}`,
  },
  "hooks.store.url": {
    "any.required": 'is required when hooks.store.kind is "postgres"',
    "object.base": `must be a postgres:// url, ${SECRET_REF}`,
  },
  "gateway.auth.token": { "object.base": `must be a string, ${SECRET_REF}` },
  "hooks.mail.imap.password": {
    "object.base": `must be a reference (${SECRET_REF}); a plain-text password is refused`,
  },
  "mappings[].textTemplate": {
    "any.required": 'is required when action is "wake" and the mapping has no transform',
  },
  "mappings[].messageTemplate": {
    "any.required": 'is required when action is "agent" (the default) and the mapping has no transform',
  },
};

/** The sentence OVERRIDES gives for a joi error type at a path shape, if any. */
export function overrideFor(shape: string, type: string): string | undefined {
  const exact = OVERRIDES[shape]?.[type];
  if (exact) return exact;
  const at = shape.lastIndexOf("mappings[].");
  return at >= 0 ? OVERRIDES[shape.slice(at)]?.[type] : undefined;
}

function limit(d: Detail): number {
  return Number(d.context?.limit);
}

/** The rule part of the sentence for one joi detail; `node` is the schema at the detail's path. */
function ruleText(d: Detail, node: Description | undefined, known: (parent: Path) => string[]): string {
  const ctx = d.context ?? {};
  switch (d.type) {
    case "any.required":
      return RULES.required();
    case "object.unknown":
      return unknownKeyRuleAt(d.path, known(d.path.slice(0, -1)));
    case "object.base":
      return RULES.type(["object"]);
    case "object.missing":
      return RULES.someOf(ctx.peers as string[]);
    case "object.xor":
      return RULES.onlyOneOf(ctx.peers as string[]);
    case "any.only":
      return RULES.oneOf(ctx.valids as unknown[], ctx.value);
    case "boolean.base":
      return RULES.type(["boolean"]);
    case "string.base":
      return RULES.type(["string"]);
    case "string.empty":
      return RULES.minLength(1);
    case "string.min":
      return RULES.minLength(limit(d));
    case "string.max":
      return RULES.maxLength(limit(d));
    case "string.pattern.name":
      return String(ctx.name);
    case "number.base":
      return RULES.type([hasRule(node, "integer") ? "integer" : "number"]);
    case "number.integer":
      return RULES.type(["integer"]);
    case "number.min":
      return RULES.atLeast(limit(d));
    case "number.max":
      return RULES.atMost(limit(d));
    case "number.greater":
      return RULES.greaterThan(limit(d));
    case "number.less":
      return RULES.lessThan(limit(d));
    case "number.infinity":
      return infinityRule(ctx.value === -Infinity, node);
    case "array.base":
      return RULES.type(["array"]);
    case "array.min":
      return RULES.minItems(limit(d));
    case "array.max":
      return RULES.maxItems(limit(d));
    case "array.unique":
      return RULES.unique();
    default:
      return `is invalid (${d.type})`;
  }
}

/** ±Infinity (JSON5) breaks the bound on its side, as a JSON Schema validator says; else it is no number. */
function infinityRule(negative: boolean, node: Description | undefined): string {
  const bound = node?.rules?.find((r) => r.name === (negative ? "min" : "max") || (negative && r.name === "greater"));
  if (!bound) return RULES.type(["number"]);
  const value = Number(bound.args?.limit);
  return negative ? (bound.name === "greater" ? RULES.greaterThan(value) : RULES.atLeast(value)) : RULES.atMost(value);
}

function hasRule(node: Description | undefined, name: string): boolean {
  return node?.rules?.some((r) => r.name === name) ?? false;
}

/** Unknown key, with a suggestion when a known sibling is close. */
function unknownKeyRuleAt(path: Path, siblings: string[]): string {
  const parent = path.slice(0, -1);
  if (pathShape(parent) === "agents.defaults.models") return "is not a model ref of the form provider/model";
  if (pathShape(parent).endsWith("mappings[].match.headers")) return PATTERN_RULES.headerName;
  return sharedUnknownKeyRule(formatKeyPath(parent), String(path[path.length - 1]), siblings);
}

/** The parts of joi's `describe()` output this module and the JSON Schema converter read. */
export interface Description {
  type?: string;
  flags?: Record<string, unknown>;
  keys?: Record<string, Description>;
  items?: Description[];
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
  patterns?: Array<{ rule: Description }>;
  matches?: Array<{ schema?: Description; is?: Description; then?: Description; otherwise?: Description }>;
}

/** For alternatives, the first alternative that describes an object with keys. */
function objectBranch(node: Description | undefined): Description | undefined {
  if (!node || node.keys || node.type !== "alternatives") return node;
  for (const m of node.matches ?? []) {
    for (const candidate of [m.schema, m.then, m.otherwise]) {
      const found = objectBranch(candidate);
      if (found?.keys) return found;
    }
  }
  return node;
}

/** The schema node at `path` in a description (array indices step into items). */
function nodeAt(root: Description, path: Path): Description | undefined {
  let node: Description | undefined = root;
  for (const seg of path) {
    node = objectBranch(node);
    if (!node) return undefined;
    if (typeof seg === "number") node = node.items?.[0];
    else node = node.keys?.[seg] ?? node.patterns?.[0]?.rule;
  }
  return objectBranch(node);
}

const descriptions = new WeakMap<Joi.Schema, Description>();

/** `schema.describe()`, computed once per schema. */
export function describeCached(schema: Joi.Schema): Description {
  let d = descriptions.get(schema);
  if (!d) {
    d = schema.describe() as Description;
    descriptions.set(schema, d);
  }
  return d;
}

/**
 * One `<key path> <rule>` line per problem, sorted by key (then rule), without
 * repeats. `prefix` is prepended to each detail's path (for lists validated on
 * their own, e.g. a preset's mappings).
 */
export function describeProblems(error: Joi.ValidationError | undefined, schema: Joi.Schema, prefix: Path = []): string[] {
  return describeProblemList(error, schema, prefix).map(problemLine);
}

/** The problems of describeProblems() as `{ key, rule }`, sorted by key. */
export function describeProblemList(error: Joi.ValidationError | undefined, schema: Joi.Schema, prefix: Path = []): KeyedProblem[] {
  if (!error) return [];
  const description = describeCached(schema);
  const known = (parent: Path) => {
    const keys = nodeAt(description, parent.slice(prefix.length))?.keys;
    return keys ? Object.keys(keys) : [];
  };
  // An entry of the wrong type is not compared for uniqueness (as ajv does): its type is the problem.
  const wrongType = new Set(error.details.filter((d) => d.type.endsWith(".base")).map((d) => formatKeyPath(d.path)));
  const details = error.details.filter((d) => d.type !== "array.unique" || !wrongType.has(formatKeyPath(d.path)));
  const problems = details.map((d): KeyedProblem => {
    const path = [...prefix, ...d.path];
    const override = overrideFor(pathShape(path), d.type);
    const rule = override ?? ruleText({ ...d, path }, nodeAt(description, d.path), known);
    return { key: formatKeyPath(path), rule };
  });
  return sortProblems(problems);
}
