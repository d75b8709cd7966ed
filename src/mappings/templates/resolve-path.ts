/**
 * Safe path lookup for templates: only own properties of plain objects and
 * indexes of arrays resolve; `__proto__`, `prototype` and `constructor` never do.
 */
import type { PathSegment } from "./parse-template";

/** Segment names that never resolve, whatever the data holds. */
export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "prototype", "constructor"]);

/** The value at `segments` below `root`, or undefined when any step is missing or forbidden. */
export function resolvePath(root: unknown, segments: readonly PathSegment[]): unknown {
  let cur: unknown = root;
  for (const seg of segments) {
    if (typeof seg === "string" && FORBIDDEN_SEGMENTS.has(seg)) return undefined;
    if (cur === null || typeof cur !== "object") return undefined;
    if (Array.isArray(cur)) {
      const index = typeof seg === "number" ? seg : /^\d+$/.test(seg) ? Number(seg) : -1;
      if (index < 0 || index >= cur.length) return undefined;
      cur = cur[index];
      continue;
    }
    const key = String(seg);
    if (!Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}
