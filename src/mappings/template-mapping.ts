/**
 * Compiles a configured (or preset-plugin) mapping: its templates are parsed
 * once, its transform module is confined and resolved, and `build` renders the
 * action for a request, runs the transform and merges its override (SPEC §6.1–6.3).
 */
import type { ActionKind, MappingConfig } from "../config/types";
import { ConfigError, err, hookErrors, ok, type Result } from "../core/errors";
import type { BatchItem, MappedHookOutcome, RawAction } from "../core/ports";
import { collectConfigProblems } from "./config-problems";
import { compileForEach, forEachItems } from "./fan-out";
import { compileResponse } from "./response-template";
import type { BuildDeps, CompiledMapping, MappingOrigin } from "./compiled-mapping";
import { renderDefaultContent } from "./default-content";
import type { TransformContext, TransformFn, TransformOverride } from "./define-transform";
import type { RequestContext } from "./request-context";
import { compileTemplate, type CompiledTemplate } from "./templates/compile-template";
import { TemplateSyntaxError } from "./templates/parse-template";
import { runTransform, transformBudget, type TransformBudget } from "./transforms/run-transform";
import { resolveTransformModule, type ResolvedTransformModule } from "./transforms/transform-path";
import { defaultEvent, eventName, MAX_EVENT_CHARS } from "./event-name";
import { messageBytes } from "./rendered-bytes";

/** Mapping fields that are templates. */
const TEMPLATE_FIELDS = ["textTemplate", "messageTemplate", "name", "sessionKey", "channel", "to", "model", "idempotencyKey", "event"] as const;
type TemplateField = (typeof TEMPLATE_FIELDS)[number];

/**
 * Sets `ctx[key]` to a copy of `value` made when the transform first reads it: a `forEach`
 * calls its transform once per item, and most read only `item`, so the whole payload is no
 * longer copied once per item (100 copies of a 240 KB body held the loop 330–630 ms).
 */
function lazyCopy(ctx: TransformContext, key: "payload", value: TransformContext["payload"]): void {
  let copy: { value: TransformContext["payload"] } | undefined;
  Object.defineProperty(ctx, key, {
    enumerable: true,
    configurable: true,
    get: () => (copy ??= { value: structuredClone(value) }).value,
    set: (v: TransformContext["payload"]) => void (copy = { value: v }),
  });
}

export interface TemplateMappingOptions {
  key: string;
  origin: MappingOrigin;
  /** Absolute directory transform modules resolve against, and how errors name it. */
  transformsDir?: string;
  transformsDirLabel: string;
}

function compileField(mapping: MappingConfig, field: TemplateField, key: string): CompiledTemplate | undefined {
  const source = mapping[field];
  if (source === undefined) return undefined;
  try {
    return compileTemplate(source);
  } catch (e) {
    if (e instanceof TemplateSyntaxError) throw new ConfigError(`${key}.${field} is not a valid template: ${e.message}`);
    throw e;
  }
}

/** The roots a `response` gets from the effect (src/intake/validate-and-dispatch.ts): an agent run's, a fan-out's; a wake's none. */
const AGENT_ROOTS = ["runId", "sessionKey"] as const;
const BATCH_ROOTS = ["runs", "events"] as const;

/** What the transform calls of one request share: the time budget and the module as loaded at the first call. */
interface RequestTransform {
  time: TransformBudget;
  load(t: ResolvedTransformModule): Promise<TransformFn>;
}

/** Sets `out[k]` unless the value is undefined or an empty string. */
function put(out: Record<string, unknown>, k: string, v: unknown): void {
  if (v !== undefined && v !== "") out[k] = v;
}

/** The challenge of a Slack `url_verification` request (the request's signature was checked before), else undefined. */
function slackChallenge(payload: Record<string, unknown>): string | undefined {
  const { type, challenge } = payload;
  return type === "url_verification" && typeof challenge === "string" && challenge.length <= 1000 ? challenge : undefined;
}

export function compileTemplateMapping(mapping: MappingConfig, opts: TemplateMappingOptions): CompiledMapping {
  const { key } = opts;
  // Every field is compiled before any problem is thrown: one start names them all.
  const problems = collectConfigProblems();
  const templates: Partial<Record<TemplateField, CompiledTemplate>> = {};
  for (const f of TEMPLATE_FIELDS) templates[f] = problems.attempt(() => compileField(mapping, f, key));

  let transform: CompiledMapping["transform"];
  if (mapping.transform) {
    const modKey = `${key}.transform.module`;
    const dir = opts.transformsDir;
    transform = problems.attempt(() => {
      if (!dir) throw new ConfigError(`${modKey}: ${opts.transformsDirLabel} is not set, so no transform can be loaded`);
      return resolveTransformModule({
        module: mapping.transform!.module,
        exportName: mapping.transform!.export,
        dir,
        key: modKey,
        dirLabel: opts.transformsDirLabel,
      });
    });
  }

  const forEach = mapping.forEach === undefined ? undefined : problems.attempt(() => compileForEach(mapping.forEach!, `${key}.forEach`));
  const respond = mapping.response === undefined ? undefined : problems.attempt(() => compileResponse(mapping.response!, `${key}.response`));
  problems.throwIfAny();

  /**
   * One action (null: the transform skipped it); `element` is the forEach item the
   * transform sees. Its templates draw on the request's `ctx.budget` (rendered-bytes.ts),
   * its transform call on the request's `calls` (every item's call shares them).
   */
  async function buildOne(
    ctx: RequestContext,
    deps: BuildDeps,
    calls: RequestTransform,
    element?: { item: unknown; index: number },
  ): Promise<Result<{ raw: RawAction; allowUnsafeExternalContent: boolean } | null>> {
    let override: TransformOverride | undefined;
    if (transform) {
      const tctx: TransformContext = {
        payload: {}, // replaced by lazyCopy below
        headers: { ...ctx.headers },
        query: { ...ctx.query },
        path: ctx.path,
        url: ctx.url,
        now: ctx.now,
        mapping: { id: mapping.id },
        ...(element ? { item: structuredClone(element.item), index: element.index } : {}),
      };
      lazyCopy(tctx, "payload", ctx.payload);
      const t = transform;
      const run = await runTransform(() => calls.load(t), tctx, calls.time);
      if (!run.ok) {
        deps.logger.error("transform failed", {
          mappingId: mapping.id,
          module: t.module,
          export: t.exportName,
          reason: run.reason,
          cause: run.cause,
          requestId: ctx.requestId,
          ...(element ? { index: element.index } : {}),
        });
        return err(hookErrors.transformFailed());
      }
      if (run.value === null) return ok(null);
      override = run.value;
    }
    const { kind: overrideKind, allowUnsafeExternalContent: overrideUnsafe, ...fields } = override ?? {};
    const kind = overrideKind ?? mapping.action;
    const raw = { ...baseAction(kind, ctx), ...fields, kind } as RawAction;
    return ok({ raw, allowUnsafeExternalContent: overrideUnsafe ?? mapping.allowUnsafeExternalContent ?? false });
  }

  const render = (f: TemplateField, ctx: RequestContext, maxChars?: number): string | undefined => templates[f]?.render(ctx, maxChars);

  const baseAction = (kind: ActionKind, ctx: RequestContext): Record<string, unknown> => {
    const out: Record<string, unknown> = { kind };
    const own = kind === "wake" ? "textTemplate" : "messageTemplate";
    const other = kind === "wake" ? "messageTemplate" : "textTemplate";
    const content = render(own, ctx) ?? render(other, ctx) ?? renderDefaultContent(kind, ctx, mapping.id);
    if (kind === "wake") {
      out.text = content;
      put(out, "mode", mapping.wakeMode);
      return out;
    }
    out.message = content;
    put(out, "name", render("name", ctx) ?? ctx.path);
    put(out, "sessionKey", render("sessionKey", ctx));
    put(out, "wakeMode", mapping.wakeMode);
    put(out, "deliver", mapping.deliver);
    put(out, "channel", render("channel", ctx));
    put(out, "to", render("to", ctx));
    put(out, "model", render("model", ctx));
    put(out, "thinking", mapping.thinking);
    put(out, "agentId", mapping.agentId);
    put(out, "timeoutSeconds", mapping.timeoutSeconds);
    return out;
  };

  const compiled: CompiledMapping = {
    id: mapping.id,
    key,
    origin: opts.origin,
    match: {
      ...(mapping.match?.path !== undefined ? { path: mapping.match.path } : {}),
      ...(mapping.match?.source !== undefined ? { source: mapping.match.source } : {}),
      ...(mapping.match?.headers !== undefined ? { headers: structuredClone(mapping.match.headers) } : {}),
    },
    action: mapping.action,
    transform,
    ...(mapping.handshake ? { handshake: mapping.handshake } : {}),
    ...(mapping.verify ? { verify: { config: mapping.verify, key: `${key}.verify`, secretKey: `${key}.verify.secret` } } : {}),
    ...(templates.idempotencyKey ? { idempotencyKey: (ctx: RequestContext) => render("idempotencyKey", ctx)?.trim() || undefined } : {}),
    event: (ctx: RequestContext) => (templates.event ? eventName(render("event", ctx, MAX_EVENT_CHARS)) : defaultEvent(mapping.verify?.scheme, ctx)),
    async build(ctx: RequestContext, deps: BuildDeps): Promise<Result<MappedHookOutcome>> {
      if (mapping.handshake === "slack") {
        const challenge = slackChallenge(ctx.payload);
        if (challenge !== undefined) return ok({ kind: "challenge", mappingId: mapping.id, body: { challenge } });
      }
      // SPEC §9: every template here (the response's too) renders within ctx.budget, which throws
      // render_too_large before anything is dispatched (nothing of a refused request takes effect).
      // SPEC §6.3: the transform calls of the request (one per forEach item) share one time budget
      // and one version of the module (loaded, and checked for changes, at the first call).
      let loaded: Promise<TransformFn> | undefined;
      const calls: RequestTransform = { time: transformBudget(deps.transformTimeoutMs), load: (t) => (loaded ??= deps.loader.load(t)) };
      if (!forEach) {
        const one = await buildOne(ctx, deps, calls);
        if (!one.ok) return one;
        if (one.value === null) return ok({ kind: "skip", mappingId: mapping.id });
        const response = respond?.(ctx, one.value.raw.kind === "agent" ? AGENT_ROOTS : []);
        return ok({ kind: "action", mappingId: mapping.id, ...one.value, ...(response ? { response } : {}) });
      }
      const elements = forEachItems(ctx.payload, forEach, mapping.id, deps.maxFanOut);
      if (!elements.ok) return elements;
      const items: BatchItem[] = [];
      let messages = 0;
      for (const [index, item] of elements.value.entries()) {
        const one = await buildOne({ ...ctx, extra: { item, index } }, deps, calls, { item, index });
        if (!one.ok) return one;
        // SPEC §9: the request's messages (a transform's too) come to at most maxRenderedBytes, which the
        // engine checks on the outcome (outcomeRenderedBytes); a fan-out stops at the element that passes it.
        messages += one.value === null ? 0 : messageBytes(one.value.raw);
        if (messages > deps.maxRenderedBytes) return err(hookErrors.renderTooLarge({ max: deps.maxRenderedBytes }));
        items.push(one.value === null ? { index, allowUnsafeExternalContent: false } : { index, ...one.value });
      }
      const response = respond?.(ctx, BATCH_ROOTS);
      return ok({ kind: "batch", mappingId: mapping.id, path: forEach.path, items, ...(response ? { response } : {}) });
    },
  };
  return compiled;
}
