/**
 * `forEach` of a mapping (SPEC §12): a payload path to an array whose elements
 * each become one action. The path uses template syntax (`events`,
 * `payload.entry[0].changes`), checked at activation; the count is bounded by
 * `hooks.maxFanOut`.
 */
import { ConfigError, err, hookErrors, ok, type Result } from "../core/errors";
import { parseTemplate, type PathSegment } from "./templates/parse-template";
import { resolvePath } from "./templates/resolve-path";

export interface CompiledForEach {
  /** The path as configured, for messages. */
  path: string;
  segments: PathSegment[];
}

/** Compiles `forEach` (a bare or `payload.`-prefixed path, no filters); ConfigError naming `key` otherwise. */
export function compileForEach(path: string, key: string): CompiledForEach {
  let parts: ReturnType<typeof parseTemplate>;
  try {
    parts = parseTemplate(`{{ ${path} }}`);
  } catch {
    parts = [];
  }
  const [only] = parts;
  if (parts.length !== 1 || only.kind !== "expr" || only.expr.kind !== "path" || only.filters.length > 0) {
    throw new ConfigError(`${key} must be a payload path such as events or payload.entry[0].changes`);
  }
  const segments = only.expr.segments[0] === "payload" ? only.expr.segments.slice(1) : only.expr.segments;
  if (segments.length === 0) throw new ConfigError(`${key} must name an array inside the payload, not the payload itself`);
  return { path: path.trim().replace(/^payload\./, ""), segments };
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  return `a ${typeof value}`;
}

/** The elements to fan out to: 400 `invalid_payload` when the path holds no array, `fan_out_too_large` beyond `max`. */
export function forEachItems(payload: Record<string, unknown>, forEach: CompiledForEach, mappingId: string, max: number): Result<unknown[]> {
  const value = resolvePath(payload, forEach.segments);
  if (!Array.isArray(value)) return err(hookErrors.forEachNotArray({ mappingId, path: forEach.path, actual: describe(value) }));
  if (value.length > max) return err(hookErrors.fanOutTooLarge({ count: value.length, path: forEach.path, max }));
  return ok(value);
}
