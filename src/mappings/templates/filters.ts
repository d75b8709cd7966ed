/**
 * The template filters (documented in docs/mappings.md). Each filter receives
 * the value produced so far (the resolved value, or the output of the previous
 * filter) and its literal arguments, checked once when the template compiles.
 */
import type { FilterArg, FilterCall } from "./parse-template";
import { indentJson } from "./indent-json";
import { caseMapped, compactJson, stringifyValue, type RenderMemo } from "./stringify-value";

interface FilterDef {
  /** Argument types, in order; `optional` marks how many trailing ones may be left out. */
  args: Array<"string" | "number">;
  optional: number;
  /** Extra argument rule, returns a problem or undefined. */
  check?(args: FilterArg[]): string | undefined;
  /**
   * `maxChars`: when given, the output may stop once longer than that (the caller refuses it then).
   * `memo`: what the request has already rendered (stringify-value.ts).
   */
  apply(value: unknown, args: FilterArg[], maxChars?: number, memo?: RenderMemo): unknown;
}

const isEmpty = (v: unknown): boolean => v === undefined || v === null || v === "";

/**
 * Cuts to at most `max` characters (code points, so emoji are never split). Walks only
 * the first `max` code points: `{{ body | truncate: 200 }}` of a 250 KB body costs 200 steps,
 * not an array of 250 000 characters (once per forEach item, 100 of them held the loop ~1 s).
 */
function truncate(text: string, max: number, suffix: string): string {
  if (text.length <= max) return text;
  let end = 0;
  for (let n = 0; n < max && end < text.length; n++) {
    const c = text.charCodeAt(end);
    const d = text.charCodeAt(end + 1);
    end += c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
  }
  return end >= text.length ? text : text.slice(0, end) + suffix;
}

export const FILTERS: Record<string, FilterDef> = {
  /** `default: "x"` — the argument when the value is missing, null or "". */
  default: { args: ["string"], optional: 0, apply: (v, [fallback]) => (isEmpty(v) ? fallback : v) },
  /** `json` / `json: 2` — the value as JSON (strings quoted); missing stays "". */
  json: {
    args: ["number"],
    optional: 1,
    check: ([indent]) =>
      indent !== undefined && (!Number.isInteger(indent) || (indent as number) < 0 || (indent as number) > 10)
        ? "json indent must be an integer from 0 to 10"
        : undefined,
    // Indented in one bounded pass (indent-json.ts): JSON.stringify's own indentation grows a deep payload manyfold first.
    apply: (v, [indent], maxChars, memo) => (v === undefined ? "" : indentJson(compactJson(v, memo) ?? "", (indent as number | undefined) ?? 0, maxChars)),
  },
  /** `truncate: 200` / `truncate: 200, "..."` — at most N characters, then the suffix (default "…") when cut. */
  truncate: {
    args: ["number", "string"],
    optional: 1,
    check: ([max]) => (!Number.isInteger(max) || (max as number) < 0 ? "truncate needs a non-negative integer length" : undefined),
    apply: (v, [max, suffix], _maxChars, memo) => truncate(stringifyValue(v, memo), max as number, (suffix as string | undefined) ?? "…"),
  },
  lower: { args: [], optional: 0, apply: (v, _args, _maxChars, memo) => caseMapped(stringifyValue(v, memo), "lower", memo) },
  upper: { args: [], optional: 0, apply: (v, _args, _maxChars, memo) => caseMapped(stringifyValue(v, memo), "upper", memo) },
  trim: { args: [], optional: 0, apply: (v, _args, _maxChars, memo) => stringifyValue(v, memo).trim() },
};

/** Names of the available filters, for error messages and docs. */
export const FILTER_NAMES = Object.keys(FILTERS);

/** Checks a filter call's name and arguments; returns a problem sentence or undefined. */
export function checkFilterCall(call: FilterCall): string | undefined {
  const def = Object.hasOwn(FILTERS, call.name) ? FILTERS[call.name] : undefined;
  if (!def) return `unknown filter "${call.name}" (available: ${FILTER_NAMES.join(", ")})`;
  const min = def.args.length - def.optional;
  if (call.args.length < min || call.args.length > def.args.length) {
    const want = min === def.args.length ? `${min}` : `${min} to ${def.args.length}`;
    return `filter "${call.name}" takes ${want} argument(s), got ${call.args.length}`;
  }
  for (let i = 0; i < call.args.length; i++) {
    if (typeof call.args[i] !== def.args[i]) return `argument ${i + 1} of filter "${call.name}" must be a ${def.args[i]}`;
  }
  return def.check?.(call.args);
}

/** Applies a checked filter call; `maxChars` and `memo` as in FilterDef.apply. */
export function applyFilter(call: FilterCall, value: unknown, maxChars?: number, memo?: RenderMemo): unknown {
  return FILTERS[call.name].apply(value, call.args, maxChars, memo);
}
