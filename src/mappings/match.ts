/**
 * Matching rules of mapped hooks (SPEC §6.1): `match.path` equals the hook name,
 * `match.source` equals `payload.source`, both must hold when both are set, and a
 * mapping with neither matches any name. `wake` and `agent` are direct endpoints
 * and never reach a mapping. Also finds mappings that can never match.
 */
import type { CompiledMapping, MappingMatch } from "./compiled-mapping";

/** Hook names handled before any mapping (and therefore never shadowed). */
export const RESERVED_HOOK_NAMES: ReadonlySet<string> = new Set(["wake", "agent"]);

export function matches(match: MappingMatch, name: string, payload: Record<string, unknown>): boolean {
  if (match.path !== undefined && match.path !== name) return false;
  if (match.source !== undefined) {
    const source = Object.hasOwn(payload, "source") ? payload.source : undefined;
    if (source !== match.source) return false;
  }
  return true;
}

/** True when every request `later` matches is already matched by `earlier`. */
export function covers(earlier: MappingMatch, later: MappingMatch): boolean {
  return (earlier.path === undefined || earlier.path === later.path) && (earlier.source === undefined || earlier.source === later.source);
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
      const what = earlier.match.path === undefined && earlier.match.source === undefined ? "the catch-all mapping" : "mapping";
      out.push({ mapping: m, shadowedBy: earlier, reason: `it is shadowed by ${what} "${earlier.id}" (${earlier.key}), which comes first and matches every request it would` });
    }
  });
  return out;
}
