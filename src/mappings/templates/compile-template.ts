/**
 * Compiles a template once (at activation) into a render function over a
 * request's template context (SPEC §6.2). Roots: `path`, `now`,
 * `headers.<name>`, `query.<name>`, `payload.<path>`, the context's `extra` roots
 * (`item`, `index`, `runId`, …); any other first name is a path into the payload. Rendering is pure data lookup: no eval, no getters,
 * no prototype access.
 */
import type { RenderBudget } from "../rendered-bytes";
import { applyFilter, checkFilterCall } from "./filters";
import { parseTemplate, TemplateSyntaxError, type TemplateExpr, type TemplatePart } from "./parse-template";
import { resolvePath } from "./resolve-path";
import { stringifyValue, type RenderMemo } from "./stringify-value";

/** What templates can see. Headers and query are already stripped of credentials. */
export interface TemplateContext {
  /** Hook name (sub-path after `{hooks.path}/`). */
  path: string;
  /** Request time, ISO-8601 UTC. */
  now: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  payload: Record<string, unknown>;
  /**
   * Further roots of one rendering (SPEC §12): `item` and `index` of a forEach
   * element, `runId`, `sessionKey` and `runs` in a mapping's response. A root named
   * here takes precedence over a bare payload path of the same name.
   */
  extra?: Readonly<Record<string, unknown>>;
  /**
   * The request's rendering allowance (`hooks.maxRenderedBytes`, rendered-bytes.ts): a
   * rendering spends its output on it, and throws `render_too_large` as soon as any
   * string it builds is longer than what is left. None: unbounded (config-only texts).
   */
  budget?: RenderBudget;
  /**
   * What this request has rendered (stringify-value.ts): the JSON of objects and the case
   * forms of long texts, so a payload rendered in every forEach item is worked on once. None: no reuse.
   */
  memo?: RenderMemo;
}

export interface CompiledTemplate {
  /** The template source as configured. */
  readonly source: string;
  /** True when the template has no `{{ }}` expression. */
  readonly isStatic: boolean;
  /**
   * The rendered text. With `maxChars`, rendering stops after the part that takes it
   * past that length (the result is then longer than `maxChars`, and cut short).
   * With `ctx.budget`, throws the `render_too_large` HookError once over it.
   */
  render(ctx: TemplateContext, maxChars?: number): string;
}

function evaluate(expr: TemplateExpr, ctx: TemplateContext): unknown {
  if (expr.kind === "literal") return expr.value;
  const [root, ...rest] = expr.segments;
  if (ctx.extra && typeof root === "string" && Object.hasOwn(ctx.extra, root)) return resolvePath(ctx.extra[root], rest);
  switch (root) {
    case "path":
      return rest.length === 0 ? ctx.path : undefined;
    case "now":
      return rest.length === 0 ? ctx.now : undefined;
    case "headers": {
      const [name, ...deeper] = rest;
      if (name === undefined) return resolvePath(ctx.headers, []);
      return resolvePath(ctx.headers, [typeof name === "string" ? name.toLowerCase() : name, ...deeper]);
    }
    case "query":
      return resolvePath(ctx.query, rest);
    case "payload":
      return resolvePath(ctx.payload, rest);
    default:
      return resolvePath(ctx.payload, expr.segments);
  }
}

/**
 * One part's text. No string it builds is longer than `room` (the budget left): a
 * filter's output past it refuses the rendering, and every filter may stop once past
 * it (`json`). `maxChars` (what the template may still render) reaches the last
 * filter only: its output is the part's, so stopping once past it changes no verdict,
 * while a filter after it (trim, truncate) could bring a cut text back under it.
 */
function renderPart(part: TemplatePart, ctx: TemplateContext, maxChars: number, room: number): string {
  if (part.kind === "text") return part.text;
  let value = evaluate(part.expr, ctx);
  const last = part.filters.length - 1;
  for (const [i, f] of part.filters.entries()) {
    value = applyFilter(f, value, i === last ? Math.min(maxChars, room) : room, ctx.memo);
    if (typeof value === "string" && value.length > room) ctx.budget!.refuse();
  }
  return stringifyValue(value, ctx.memo);
}

/**
 * Parses and checks a template. Throws TemplateSyntaxError (with a position)
 * for malformed syntax, an unknown filter or wrong filter arguments.
 *
 * @example
 * compileTemplate('{{ payload.repository.full_name }}: {{ payload.head_commit.message | truncate: 80 }}')
 */
export function compileTemplate(source: string): CompiledTemplate {
  const parts = parseTemplate(source);
  for (const part of parts) {
    if (part.kind !== "expr") continue;
    for (const f of part.filters) {
      const problem = checkFilterCall(f);
      if (problem) throw new TemplateSyntaxError(problem, part.position);
    }
  }
  const isStatic = parts.every((p) => p.kind === "text");
  return {
    source,
    isStatic,
    render: (ctx, maxChars = Infinity) => {
      const room = ctx.budget ? ctx.budget.left() : Infinity;
      let out = "";
      for (const p of parts) {
        out += renderPart(p, ctx, maxChars - out.length, room - out.length);
        if (out.length > room) ctx.budget!.refuse();
        if (out.length > maxChars) break;
      }
      ctx.budget?.spend(out);
      return out;
    },
  };
}
