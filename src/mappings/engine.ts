/**
 * The mapping engine (SPEC §6): compiled synchronously at activation from the
 * configured mappings, then the enabled presets in `hooks.presets` order. For a
 * request on `{hooks.path}/<name>` it finds the first matching mapping, builds the
 * credential-free context, renders templates, runs the transform and returns a
 * raw action (validated and dispatched by the HTTP pipeline), a skip, or no match.
 *
 * @example
 *   const engine = createMappingEngine({ config, presets: api.listPresets(), logger, configDir: api.configDir });
 *   const r = await engine.resolve({ name: "github", payload, headers, query, url, requestId });
 */
import type { ActionKind, HooksConfig } from "../config/types";
import { err, HookError, hookErrors, ok, type Result } from "../core/errors";
import type { MappedHookInput, MappedHookOutcome, MappedHookResolver, MappingSelection } from "../core/ports";
import type { ModuleLogger } from "../core/logger";
import type { HookPresetContribution } from "../host-contract/host-api";
import type { BuildDeps, CompiledMapping, MappingMatch, MappingOrigin } from "./compiled-mapping";
import { findUnreachable, matches, RESERVED_HOOK_NAMES } from "./match";
import { collectMetaHandshakes, collectPathVerifications, type MetaHandshakeConfig, type PathVerification } from "./path-verifications";
import { compileMappings } from "./compile-mappings";
import { buildRequestContext } from "./request-context";
import { renderMemo } from "./templates/stringify-value";
import { outcomeRenderedBytes, renderBudget } from "./rendered-bytes";
import { createTransformLoader, type TransformLoader } from "./transforms/transform-loader";
import { TIMESTAMPED_SCHEMES } from "../safety/signatures/types";

export interface MappingEngineOptions {
  config: HooksConfig;
  /** Presets contributed by plugins (`api.listPresets()`); entries of this plugin itself are ignored. */
  presets: HookPresetContribution[];
  logger: ModuleLogger;
  /** Request time source; default `() => new Date()`. */
  clock?: () => Date;
  /**
   * Directory of the config file. When given, `hooks.transformsDir` must be inside it
   * (checked when a configured mapping has a transform).
   */
  configDir?: string;
  /** Transform module loader; default a jiti loader with reload on change. */
  loader?: TransformLoader;
}

/** One mapping as `describe()` reports it (for logs, the dry run and docs). */
export interface MappingDescription {
  id: string;
  /** How messages name it, e.g. `hooks.mappings[0]` or `presets.alertmanager.mappings[0]`. */
  key: string;
  origin: MappingOrigin;
  match: MappingMatch;
  action: ActionKind;
  transform?: { module: string; export?: string };
  /** False when it can never match; `unreachableReason` says why. */
  reachable: boolean;
  unreachableReason?: string;
  /** Id of the earlier mapping that always matches first, when that is why it is unreachable. */
  shadowedBy?: string;
}

export interface MappingEngine extends MappedHookResolver {
  /** Select, then resolve, in one call (`no_match` when no mapping matches). */
  resolve(input: MappedHookInput): Promise<Result<MappedHookOutcome>>;
  /** Every compiled mapping in match order. */
  describe(): MappingDescription[];
  /** One entry per path whose requests must be signed (secrets not read yet). */
  verifications(): PathVerification[];
  /** One entry per path whose Meta verification GET is answered (verify tokens not read yet). */
  metaHandshakes(): MetaHandshakeConfig[];
  /** `select`; `dryRun` logs it as a dry run's (src/intake/dry-run.ts). */
  select(input: MappedHookInput, options?: { dryRun?: boolean }): MappingSelection | undefined;
}

function reportDuplicates(mappings: readonly CompiledMapping[], logger: ModuleLogger): void {
  const byId = new Map<string, string[]>();
  for (const m of mappings) byId.set(m.id, [...(byId.get(m.id) ?? []), m.key]);
  for (const [id, settings] of byId) {
    // "settings", not "keys": a meta name with a credential word ("key") is redacted in the log.
    if (settings.length > 1)
      logger.warn(`duplicate mapping id "${id}" (${settings.join(", ")}); responses and logs cannot tell these mappings apart`, { mappingId: id, settings });
  }
}

/** Compiles every mapping (throws ConfigError on a bad one) and reports problems at start. */
export function createMappingEngine(options: MappingEngineOptions): MappingEngine {
  const { config, logger } = options;
  const clock = options.clock ?? (() => new Date());

  // Every mapping and preset is compiled before any problem is thrown: one start names them all.
  const mappings = compileMappings(config, { presets: options.presets, logger, ...(options.configDir === undefined ? {} : { configDir: options.configDir }) });

  const verifications = collectPathVerifications(mappings);
  const metaHandshakes = collectMetaHandshakes(mappings);
  // A verify.header (token-header, hmac-sha256) carries a secret or a signature under a name the
  // credential rule may not know: templates and transforms never see it, on any path.
  const secretHeaders: ReadonlySet<string> = new Set(verifications.flatMap((v) => (v.config.header ? [v.config.header.toLowerCase()] : [])));
  reportDuplicates(mappings, logger);
  const unreachableFound = findUnreachable(mappings);
  const unreachable = new Map(unreachableFound.map((u) => [u.mapping, u.reason]));
  const shadowers = new Map(unreachableFound.flatMap((u) => (u.shadowedBy ? [[u.mapping, u.shadowedBy.id] as const] : [])));
  for (const [m, reason] of unreachable) {
    logger.warn(`mapping "${m.id}" (${m.key}) can never match: ${reason}`, { mappingId: m.id, setting: m.key });
  }
  // SPEC §10's own example sets it on github, so it is not refused; but it protects nothing there.
  for (const m of mappings) {
    const verify = m.verify?.config;
    if (verify?.toleranceSeconds !== undefined && !TIMESTAMPED_SCHEMES.has(verify.scheme)) {
      logger.warn(
        `${m.verify!.key}.toleranceSeconds has no effect: the ${verify.scheme} scheme signs no timestamp, so a captured request is not refused for its age`,
        { mappingId: m.id, setting: `${m.verify!.key}.toleranceSeconds` },
      );
    }
  }

  const deps: BuildDeps = {
    loader: options.loader ?? createTransformLoader(),
    transformTimeoutMs: config.transformTimeoutMs,
    logger,
    maxFanOut: config.maxFanOut,
    maxRenderedBytes: config.maxRenderedBytes,
  };

  const find = (name: string, input: MappedHookInput): CompiledMapping | undefined =>
    RESERVED_HOOK_NAMES.has(name) ? undefined : mappings.find((m) => matches(m.match, name, input.payload, input.headers));

  /** The first matching mapping, found once: its idempotency key and its action both come from it. */
  function select(input: MappedHookInput, dryRun = false): MappingSelection | undefined {
    const name = input.name;
    const mapping = find(name, input);
    if (!mapping) {
      logger.debug("no mapping matched", { hook: name, requestId: input.requestId, dryRun });
      return undefined;
    }
    let ctx: ReturnType<typeof buildRequestContext> | undefined;
    // SPEC §9: every template of the request (key, event, actions, response) draws on one budget.
    const context = () => (ctx ??= { ...buildRequestContext(input, clock(), secretHeaders), budget: renderBudget(deps.maxRenderedBytes), memo: renderMemo() });
    // A key or event over the budget leaves them unnamed; resolve() then refuses the request.
    let refused: HookError | undefined;
    const bounded = (render: () => string | undefined): string | undefined => {
      try {
        return render();
      } catch (e) {
        if (!(e instanceof HookError)) throw e;
        refused ??= e;
        return undefined;
      }
    };
    return {
      mappingId: mapping.id,
      idempotencyKey: () => bounded(() => mapping.idempotencyKey?.(context())),
      event: () => bounded(() => mapping.event?.(context())),
      async resolve() {
        if (refused) return err(refused);
        try {
          const outcome = await mapping.build(context(), deps);
          // SPEC §9: every mapping is bounded, presets built in code too (template mappings stop rendering early as well).
          if (outcome.ok && outcomeRenderedBytes(outcome.value) > deps.maxRenderedBytes) return err(hookErrors.renderTooLarge({ max: deps.maxRenderedBytes }));
          logger.debug("mapping resolved", {
            hook: name,
            mappingId: mapping.id,
            requestId: input.requestId,
            dryRun,
            outcome: outcome.ok ? outcome.value.kind : outcome.error.code,
          });
          return outcome;
        } catch (e) {
          if (e instanceof HookError) return err(e); // render_too_large (rendered-bytes.ts)
          logger.error("mapping failed unexpectedly", { mappingId: mapping.id, requestId: input.requestId, cause: e instanceof Error ? e.message : String(e) });
          return err(hookErrors.internalError());
        }
      },
    };
  }

  /** Select, then resolve: `no_match` when nothing matches. */
  async function run(input: MappedHookInput): Promise<Result<MappedHookOutcome>> {
    const selected = select(input);
    return selected ? selected.resolve() : ok({ kind: "no_match" });
  }

  const descriptions: MappingDescription[] = mappings.map((m) => {
    const d: MappingDescription = { id: m.id, key: m.key, origin: m.origin, match: { ...m.match }, action: m.action, reachable: !unreachable.has(m) };
    if (m.transform) d.transform = { module: m.transform.module, ...(m.transform.exportName ? { export: m.transform.exportName } : {}) };
    if (unreachable.has(m)) d.unreachableReason = unreachable.get(m);
    if (shadowers.has(m)) d.shadowedBy = shadowers.get(m);
    return d;
  });

  return {
    select: (input, opts) => select(input, opts?.dryRun ?? false),
    resolve: (input) => run(input),
    verifications: () => verifications.map((v) => ({ ...v })),
    metaHandshakes: () => metaHandshakes.map((h) => ({ ...h })),
    describe: () => descriptions.map((d) => ({ ...d, match: { ...d.match } })),
  };
}
