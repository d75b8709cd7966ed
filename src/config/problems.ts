/**
 * Turns joi validation details into one sentence per problem, naming the key
 * path and the rule: `hooks.maxBodyBytes must be at least 1`. Values are never
 * echoed (a bad value may be a secret); only the rule is described.
 */
import type Joi from "joi";

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
function pathShape(path: Path): string {
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

function overrideFor(shape: string, type: string): string | undefined {
  const exact = OVERRIDES[shape]?.[type];
  if (exact) return exact;
  const at = shape.lastIndexOf("mappings[].");
  return at >= 0 ? OVERRIDES[shape.slice(at)]?.[type] : undefined;
}

function limit(d: Detail): string {
  return String(d.context?.limit);
}

/** The rule part of the sentence for one joi detail. */
function ruleText(d: Detail, known: (parent: Path) => string[]): string {
  const ctx = d.context ?? {};
  switch (d.type) {
    case "any.required":
      return "is required";
    case "object.unknown":
      return unknownKeyRule(d.path, known(d.path.slice(0, -1)));
    case "object.base":
      return "must be an object";
    case "object.missing":
      return `must have one of: ${(ctx.peers as string[]).join(", ")}`;
    case "object.xor":
      return `must have only one of: ${(ctx.peers as string[]).join(", ")}`;
    case "any.only":
      return `must be one of: ${(ctx.valids as unknown[]).map(String).join(", ")}`;
    case "boolean.base":
      return "must be a boolean (true or false)";
    case "string.base":
      return "must be a string";
    case "string.empty":
      return "must not be empty";
    case "string.min":
      return `must be at least ${limit(d)} characters long`;
    case "string.max":
      return `must be at most ${limit(d)} characters long`;
    case "string.pattern.name":
      return String(ctx.name);
    case "number.base":
      return "must be a number";
    case "number.integer":
      return "must be an integer";
    case "number.min":
      return `must be at least ${limit(d)}`;
    case "number.max":
      return `must be at most ${limit(d)}`;
    case "number.greater":
      return `must be greater than ${limit(d)}`;
    case "number.infinity":
    case "number.unsafe":
      return "must be a finite number within the safe range";
    case "array.base":
      return "must be an array";
    case "array.min":
      return `must contain at least ${limit(d)} entr${limit(d) === "1" ? "y" : "ies"}`;
    case "array.unique":
      return "repeats an earlier entry";
    default:
      return `is invalid (${d.type})`;
  }
}

/** Unknown key, with a suggestion when a known sibling is one or two edits away. */
function unknownKeyRule(path: Path, siblings: string[]): string {
  const parent = path.slice(0, -1);
  const key = String(path[path.length - 1]);
  if (pathShape(parent) === "agents.defaults.models") return "is not a model ref of the form provider/model";
  const best = closest(key, siblings);
  const allowed = siblings.length > 0 ? `; known keys here: ${siblings.join(", ")}` : "";
  return best
    ? `is not a known key (did you mean ${formatKeyPath([...parent, best])}?)`
    : `is not a known key${allowed}`;
}

/** The nearest candidate, if close enough to be a likely typo (2 edits, more for long keys). */
function closest(key: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const dist = c.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, c);
    const allowed = Math.max(2, Math.floor(Math.max(key.length, c.length) / 4));
    if (dist <= allowed && dist < bestScore) {
      best = c;
      bestScore = dist;
    }
  }
  return best;
}

/** Levenshtein distance (small strings only: config keys). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

interface Description {
  type?: string;
  keys?: Record<string, Description>;
  items?: Description[];
  patterns?: Array<{ rule: Description }>;
  matches?: Array<{ schema?: Description; then?: Description; otherwise?: Description }>;
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

/** Known keys of the object at `path` in a schema description (array indices step into items). */
function knownKeysAt(root: Description, path: Path): string[] {
  let node: Description | undefined = root;
  for (const seg of path) {
    node = objectBranch(node);
    if (!node) return [];
    if (typeof seg === "number") node = node.items?.[0];
    else node = node.keys?.[seg] ?? node.patterns?.[0]?.rule;
  }
  node = objectBranch(node);
  return node?.keys ? Object.keys(node.keys) : [];
}

const descriptions = new WeakMap<Joi.Schema, Description>();

function describeCached(schema: Joi.Schema): Description {
  let d = descriptions.get(schema);
  if (!d) {
    d = schema.describe() as Description;
    descriptions.set(schema, d);
  }
  return d;
}

/**
 * One sentence per joi detail, `<key path> <rule>`. `prefix` is prepended to each
 * detail's path (for lists validated on their own, e.g. a preset's mappings).
 */
export function describeProblems(error: Joi.ValidationError | undefined, schema: Joi.Schema, prefix: Path = []): string[] {
  if (!error) return [];
  const description = describeCached(schema);
  const known = (parent: Path) => knownKeysAt(description, parent);
  const sentences = error.details.map((d) => {
    const path = [...prefix, ...d.path];
    const override = overrideFor(pathShape(path), d.type);
    const rule = override ?? ruleText({ ...d, path: [...prefix, ...d.path] }, (p) => known(p.slice(prefix.length)));
    return `${formatKeyPath(path)} ${rule}`;
  });
  return [...new Set(sentences)];
}
