/**
 * Matching rules of mapped hooks (SPEC §6.1): `match.path` equals the hook name,
 * `match.source` equals `payload.source`, every header of `match.headers` equals
 * one of its values; all must hold when several are set, and a mapping with none
 * matches any name. `wake` and `agent` are direct endpoints
 * and never reach a mapping. Also finds mappings that can never match.
 */
import type { CompiledMapping, MappingMatch } from "./compiled-mapping";

/** Hook names handled before any mapping (and therefore never shadowed). */
export const RESERVED_HOOK_NAMES: ReadonlySet<string> = new Set(["wake", "agent"]);

/**
 * Paths the run and ledger routes own (SPEC §11: `runs`, `runs/<id>`, `deliveries`
 * and everything below `deliveries/`): a mapping on one is a config error.
 *
 * @example isReservedReadPath("deliveries/x/replay") // true
 */
export function isReservedReadPath(path: string): boolean {
  return path === "runs" || path === "deliveries" || path.startsWith("deliveries/") || (path.startsWith("runs/") && !path.slice(5).includes("/"));
}

/** `headers`: lower-cased request headers. */
export function matches(match: MappingMatch, name: string, payload: Record<string, unknown>, headers: Readonly<Record<string, string>> = {}): boolean {
  if (match.path !== undefined && match.path !== name) return false;
  if (match.headers !== undefined) {
    for (const [header, values] of Object.entries(match.headers)) {
      const value = Object.hasOwn(headers, header) ? headers[header] : undefined;
      if (value === undefined || !values.includes(value)) return false;
    }
  }
  if (match.source !== undefined) {
    const source = Object.hasOwn(payload, "source") ? payload.source : undefined;
    if (source !== match.source) return false;
  }
  return true;
}

/** True when every request `later` matches is already matched by `earlier`. */
export function covers(earlier: MappingMatch, later: MappingMatch): boolean {
  return (
    (earlier.path === undefined || earlier.path === later.path) &&
    (earlier.source === undefined || earlier.source === later.source) &&
    coversHeaders(earlier.headers, later.headers)
  );
}

/** Every header `earlier` requires is required by `later` too, with no value `earlier` refuses. */
function coversHeaders(earlier: MappingMatch["headers"], later: MappingMatch["headers"]): boolean {
  if (earlier === undefined) return true;
  return Object.entries(earlier).every(([h, values]) => later !== undefined && Object.hasOwn(later, h) && later[h]!.every((v) => values.includes(v)));
}

/** True when the mapping matches any request (no path, source or headers). */
export function isCatchAll(match: MappingMatch): boolean {
  return match.path === undefined && match.source === undefined && match.headers === undefined;
}

export interface UnreachableMapping {
  mapping: CompiledMapping;
  reason: string;
  shadowedBy?: CompiledMapping;
}

/** Mappings that can never match: on a reserved name, or covered by an earlier mapping. */
export function findUnreachable(mappings: readonly CompiledMapping[]): UnreachableMapping[] {
  const out: UnreachableMapping[] = [];
  mappings.forEach((m, i) => {
    if (m.match.path !== undefined && RESERVED_HOOK_NAMES.has(m.match.path)) {
      out.push({ mapping: m, reason: `match.path "${m.match.path}" is a direct endpoint, which mappings cannot shadow` });
      return;
    }
    const earlier = mappings.slice(0, i).find((e) => covers(e.match, m.match));
    if (earlier) {
      const what = isCatchAll(earlier.match) ? "the catch-all mapping" : "mapping";
      out.push({
        mapping: m,
        shadowedBy: earlier,
        reason: `it is shadowed by ${what} "${earlier.id}" (${earlier.key}), which comes first and matches every request it would`,
      });
    }
  });
  return out;
}
