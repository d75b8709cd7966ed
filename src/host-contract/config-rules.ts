/**
 * How a configuration problem is worded, shared by the plugin (joi, in
 * src/config/problems.ts) and the host (ajv, in src/gateway/config/ajv-errors.ts)
 * so that one problem reads the same whichever side finds it: one
 * `<key> <rule>` line per problem, sorted by key.
 *
 * A JSON Schema states a rule a user cannot read from the keyword alone (a
 * regular expression, a conditional `required`, an alternative) with an
 * `x-rule` annotation on the same node:
 *
 *   { "pattern": "^\\S*:$", "x-rule": "must end with ':' and contain no whitespace" }
 *   { "type": "object", "x-rule": { "type": "must be a reference, not plain text" } }
 *
 * A string covers the node's RULE_ANNOTATED_KEYWORDS; an object names the
 * keyword each sentence is for (any keyword, `type` included).
 *
 * @example
 *   unknownKeyRule("hooks", "tokn", ["enabled", "token"]) // "is not a known key (did you mean hooks.token?)"
 *   RULES.type(["integer"])                              // "must be an integer"
 */

/** The annotation keyword holding a rule in words. */
export const RULE_ANNOTATION = "x-rule";

/** Keywords a string `x-rule` replaces the wording of: those whose failure says nothing a user can act on. */
export const RULE_ANNOTATED_KEYWORDS: readonly string[] = ["pattern", "format", "required", "not", "const", "anyOf", "oneOf"];

/** One problem: the dotted key (`hooks.mappings[0].id`) and the rule it breaks. */
export interface KeyedProblem {
  key: string;
  rule: string;
}

const TYPE_NOUNS: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean (true or false)",
  object: "an object",
  array: "an array",
  null: "null",
};

/** Values longer than this are not repeated in a message. */
const MAX_GOT_CHARS = 40;

/** ` (got "wakey")` for a short primitive value, else "". */
function gotText(got: unknown): string {
  if (typeof got !== "string" && typeof got !== "number" && typeof got !== "boolean") return "";
  const text = JSON.stringify(got);
  return text.length > MAX_GOT_CHARS ? "" : ` (got ${text})`;
}

/** The sentence (after the key) of each plain rule. */
export const RULES = {
  required: (): string => "is required",
  type: (types: readonly string[]): string => `must be ${types.map((t) => TYPE_NOUNS[t] ?? t).join(" or ")}`,
  /** With the value that was given when it is a short string, number or boolean: `must be one of: wake, agent (got "wakey")`. */
  oneOf: (values: readonly unknown[], got?: unknown): string => `must be one of: ${values.map(String).join(", ")}${gotText(got)}`,
  atLeast: (limit: number): string => `must be at least ${limit}`,
  atMost: (limit: number): string => `must be at most ${limit}`,
  greaterThan: (limit: number): string => `must be greater than ${limit}`,
  lessThan: (limit: number): string => `must be less than ${limit}`,
  minLength: (limit: number): string => (limit <= 1 ? "must not be empty" : `must be at least ${limit} characters long`),
  maxLength: (limit: number): string => `must be at most ${limit} characters long`,
  minItems: (limit: number): string => `must contain at least ${limit} ${limit === 1 ? "entry" : "entries"}`,
  maxItems: (limit: number): string => `must contain at most ${limit} ${limit === 1 ? "entry" : "entries"}`,
  unique: (): string => "repeats an earlier entry",
  someOf: (peers: readonly string[]): string => `must have one of: ${peers.join(", ")}`,
  onlyOneOf: (peers: readonly string[]): string => `must have only one of: ${peers.join(", ")}`,
} as const;

/** `parent` + `.key` (or `key` alone at the root). */
export function childKey(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions):
 * `tokn`→`token` 1, `tokne`→`token` 1. For config keys only (short strings).
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known key `key` was most likely meant as: the nearest by edit distance
 * (case differences are free), if within one edit per four characters (at least one).
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = candidate.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, candidate);
    const allowed = Math.max(1, Math.floor(Math.max(key.length, candidate.length) / 4));
    if (distance <= allowed && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** The rule of an unknown key under `parent`: a suggestion when one is close, else the known keys. */
export function unknownKeyRule(parent: string, key: string, known: readonly string[]): string {
  const meant = closestKey(key, known);
  if (meant !== undefined) return `is not a known key (did you mean ${childKey(parent, meant)}?)`;
  return known.length > 0 ? `is not a known key; known keys here: ${known.join(", ")}` : "is not a known key";
}

/** `hooks.mappings[10].id` → ["hooks", "mappings", 10, "id"] (for ordering). */
function keySegments(key: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const m of key.matchAll(/\[(\d+)\]|[^.[\]]+/g)) out.push(m[1] !== undefined ? Number(m[1]) : m[0]);
  return out;
}

function compareKeys(a: string, b: string): number {
  const x = keySegments(a);
  const y = keySegments(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    if (typeof p === "number" && typeof q === "number") return p - q;
    if (typeof p === "number") return -1;
    if (typeof q === "number") return 1;
    return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

/**
 * Problems in reading order: by key (array indices numerically, a key before
 * the keys inside it), then by rule; duplicates dropped.
 */
export function sortProblems(problems: readonly KeyedProblem[]): KeyedProblem[] {
  const seen = new Set<string>();
  const unique = problems.filter((p) => {
    const line = problemLine(p);
    if (seen.has(line)) return false;
    seen.add(line);
    return true;
  });
  return unique.sort((a, b) => compareKeys(a.key, b.key) || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
}

/** `<key> <rule>` (the rule alone when there is no key). */
export function problemLine(p: KeyedProblem): string {
  return p.key === "" ? p.rule : `${p.key} ${p.rule}`;
}
