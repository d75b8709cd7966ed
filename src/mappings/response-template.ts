/**
 * A mapping's `response` (SPEC §12): `{ status: 200 | 202, body }` where the body
 * is a template string or an object (nested objects and arrays allowed) whose
 * string values are templates; numbers, booleans and null are kept as they are.
 * Compiled once at activation; rendered with the request's template context plus
 * the roots the effect provides (`runId`, `sessionKey`, `runs`; `item`/`index`
 * are not set: a response answers the whole request).
 */
import type { MappingResponseConfig } from "../config/types";
import { ConfigError } from "../core/errors";
import type { ResponseRenderer } from "../core/ports";
import type { RequestContext } from "./request-context";
import { compileTemplate } from "./templates/compile-template";
import { TemplateSyntaxError } from "./templates/parse-template";

type BodyRenderer = (ctx: RequestContext) => unknown;

function compileValue(value: unknown, key: string): BodyRenderer {
  if (typeof value === "string") {
    let t;
    try {
      t = compileTemplate(value);
    } catch (e) {
      if (e instanceof TemplateSyntaxError) throw new ConfigError(`${key} is not a valid template: ${e.message}`);
      throw e;
    }
    return (ctx) => t.render(ctx);
  }
  if (Array.isArray(value)) {
    const items = value.map((v, i) => compileValue(v, `${key}[${i}]`));
    return (ctx) => items.map((render) => render(ctx));
  }
  if (value !== null && typeof value === "object") {
    const fields = Object.entries(value).map(([k, v]) => [k, compileValue(v, `${key}.${k}`)] as const);
    return (ctx) => {
      const out: Record<string, unknown> = {};
      for (const [k, render] of fields) Object.defineProperty(out, k, { value: render(ctx), enumerable: true, writable: true, configurable: true });
      return out;
    };
  }
  return () => value;
}

/**
 * `effectRoots`: the roots the effect will provide (`runId`, `sessionKey` for an agent run;
 * `runs`, `events` for a fan-out). The body is rendered at once without them (empty), within
 * the request's budget (SPEC §9: a body over it is refused before anything is accepted), and
 * again once the effect is known — the same text plus those roots, which the gateway makes
 * (ids, validated session keys, at most hooks.maxFanOut runs), so it is not budgeted again.
 *
 * @example
 *   const respond = compileResponse({ status: 200, body: { received: "{{ payload.id }}" } }, "hooks.mappings[0].response");
 *   respond(ctx, ["runId", "sessionKey"])({ runId: "r1" }) // { status: 200, body: { received: "evt_1" } }
 */
export function compileResponse(config: MappingResponseConfig, key: string): (ctx: RequestContext, effectRoots: readonly string[]) => ResponseRenderer {
  const body = config.body === undefined ? undefined : compileValue(config.body, `${key}.body`);
  return (ctx, effectRoots) => {
    body?.({ ...ctx, extra: Object.fromEntries(effectRoots.map((root) => [root, undefined])) });
    return (vars) => ({ status: config.status, body: body?.({ ...ctx, budget: undefined, extra: { ...vars } }) });
  };
}
