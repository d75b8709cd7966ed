/**
 * A mapping after activation: matching rule plus a `build` step that turns one
 * request into an outcome (action, skip, or a coded error). Configured and
 * preset-plugin mappings build through templates and transforms; the built-in
 * `mail` preset builds in code.
 */
import type { ActionKind, HandshakeConfig, VerifyConfig } from "../config/types";
import type { Result } from "../core/errors";
import type { MappedHookOutcome } from "../core/ports";
import type { ModuleLogger } from "../core/logger";
import type { RequestContext } from "./request-context";
import type { TransformLoader } from "./transforms/transform-loader";
import type { ResolvedTransformModule } from "./transforms/transform-path";

export type MappingOrigin = { kind: "config"; index: number } | { kind: "preset"; preset: string; pluginId: string; index: number };

export interface MappingMatch {
  /** Exact sub-path, slashes trimmed. */
  path?: string;
  /** Must equal `payload.source`. */
  source?: string;
  /** Lower-case header name → accepted values: every named header must equal one of them. */
  headers?: Record<string, string[]>;
}

/** The sender verification a mapping (or preset) declares for its path (SPEC §10). */
export interface MappingVerify {
  config: VerifyConfig;
  /** How messages name the block, e.g. `hooks.mappings[2].verify` or `hooks.github`. */
  key: string;
  /** How messages name its secret, e.g. `hooks.mappings[2].verify.secret` or `hooks.github.secret`. */
  secretKey: string;
}

/** What `build` needs from the engine. */
export interface BuildDeps {
  loader: TransformLoader;
  /** `hooks.transformTimeoutMs`: the time all the transform calls of one request share (a forEach's items together). */
  transformTimeoutMs: number;
  logger: ModuleLogger;
  /** `hooks.maxFanOut`: most elements one forEach request may turn into actions. */
  maxFanOut: number;
  /** `hooks.maxRenderedBytes`: most bytes of messages one request may render across its actions. */
  maxRenderedBytes: number;
}

export interface CompiledMapping {
  id: string;
  /** How config errors and warnings name it, e.g. `hooks.mappings[2]`. */
  key: string;
  origin: MappingOrigin;
  match: MappingMatch;
  action: ActionKind;
  transform?: ResolvedTransformModule;
  verify?: MappingVerify;
  /** The sender handshake the mapping answers (SPEC §12). */
  handshake?: HandshakeConfig;
  /** The idempotency key of a request that carries no idempotency header (`undefined`: none). */
  idempotencyKey?(ctx: RequestContext): string | undefined;
  /** The request's event (event-name.ts): the `event` template, else the verify scheme's default. */
  event?(ctx: RequestContext): string | undefined;
  build(ctx: RequestContext, deps: BuildDeps): Promise<Result<MappedHookOutcome>>;
}
