/**
 * How a resolved template value becomes text: missing and null → "", strings
 * as they are, numbers and booleans with String(), objects and arrays as JSON.
 */

/**
 * What one request has already rendered (TemplateContext `memo`): the compact JSON of
 * objects, and the lower- and upper-case forms of long texts. A `forEach` renders
 * `{{ payload | json | truncate: 200 }}` or `{{ payload.body | upper | truncate: 20 }}` once
 * per item, and these are the same each time.
 */
export interface RenderMemo {
  json: WeakMap<object, string | undefined>;
  lower: Map<string, string>;
  upper: Map<string, string>;
}

/** An empty memo, for one request. */
export function renderMemo(): RenderMemo {
  return { json: new WeakMap(), lower: new Map(), upper: new Map() };
}

/** Texts shorter than this are case-mapped again rather than remembered. */
const MEMO_MIN_CHARS = 1024;

/** `JSON.stringify(value)`, taken from `memo` when this object was stringified before. */
export function compactJson(value: unknown, memo?: RenderMemo): string | undefined {
  if (memo === undefined || value === null || typeof value !== "object") return JSON.stringify(value);
  if (memo.json.has(value)) return memo.json.get(value);
  const json = JSON.stringify(value);
  memo.json.set(value, json);
  return json;
}

/** `text` in lower or upper case, taken from `memo` when this long text was mapped before. */
export function caseMapped(text: string, to: "lower" | "upper", memo?: RenderMemo): string {
  const map = (t: string): string => (to === "lower" ? t.toLowerCase() : t.toUpperCase());
  if (memo === undefined || text.length < MEMO_MIN_CHARS) return map(text);
  const known = memo[to].get(text);
  if (known !== undefined) return known;
  const out = map(text);
  memo[to].set(text, out);
  return out;
}

export function stringifyValue(value: unknown, memo?: RenderMemo): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (typeof value === "object") {
    try {
      return compactJson(value, memo) ?? "";
    } catch {
      return "";
    }
  }
  return "";
}
