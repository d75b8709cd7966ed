/**
 * How a resolved template value becomes text: missing and null → "", strings
 * as they are, numbers and booleans with String(), objects and arrays as JSON.
 */

/**
 * The compact JSON of objects one request has already rendered (TemplateContext `memo`):
 * a `forEach` renders `{{ payload | json | truncate: 200 }}` once per item, and the
 * payload's JSON is the same each time.
 */
export type JsonMemo = WeakMap<object, string | undefined>;

/** `JSON.stringify(value)`, taken from `memo` when this object was stringified before. */
export function compactJson(value: unknown, memo?: JsonMemo): string | undefined {
  if (memo === undefined || value === null || typeof value !== "object") return JSON.stringify(value);
  if (memo.has(value)) return memo.get(value);
  const json = JSON.stringify(value);
  memo.set(value, json);
  return json;
}

export function stringifyValue(value: unknown, memo?: JsonMemo): string {
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
