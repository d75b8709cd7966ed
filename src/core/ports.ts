/**
 * Seams of the request pipeline (the order of its stages: docs/architecture.md
 * "Request lifecycle"), each injected so it can be tested alone.
 */
import type { ActionSource, AgentAction, DispatchResult, WakeAction } from "./actions";
import type { Result } from "./errors";
import type { RunRecord } from "./runs";

/** A response decided by a handler, before rendering. 2xx bodies are the SPEC §4.2 shapes. */
export interface HookResponse {
  status: number;
  /** JSON body; undefined for 204. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * The 202 body of an accepted run (SPEC §4.2; `mapping` for mapped hooks): what the
 * hook handler answers and what crash recovery stores for a run accepted under an
 * idempotency key whose request died before it was answered.
 *
 * @example acceptedRunBody({ id: "r1", sessionKey: "hook:a" }) // { ok: true, runId: "r1", sessionKey: "hook:a" }
 */
export function acceptedRunBody(run: { id: string; sessionKey: string; mappingId?: string }): Record<string, unknown> {
  const body: Record<string, unknown> = { ok: true, runId: run.id, sessionKey: run.sessionKey };
  if (run.mappingId !== undefined) body.mapping = run.mappingId;
  return body;
}

/** Raw, unvalidated action fields as a mapping/template/transform produced them. */
export type RawAction = ({ kind: "wake" } & Record<string, unknown>) | ({ kind: "agent" } & Record<string, unknown>);

export interface MappedHookInput {
  /** The hook's one name (src/core/hook-name.ts): `a//b/` and `%61/b` arrive as `a/b`. */
  name: string;
  payload: Record<string, unknown>;
  /** Lower-cased request headers (credentials still present: the resolver strips them). */
  headers: Record<string, string>;
  /** Query parameters (the `token` parameter still present: the resolver strips it). */
  query: Record<string, string>;
  /** Request URL relative to the gateway root, with any token redacted. */
  url: string;
  requestId: string;
}

/**
 * Renders a mapping's `response` (SPEC §12) once the request's effect is known:
 * `vars` are the extra template roots (`runId`, `sessionKey`, `runs`).
 */
export type ResponseRenderer = (vars: Readonly<Record<string, unknown>>) => { status: 200 | 202; body: unknown };

/** One element of a forEach request: its action, or none when the transform skipped it. */
export interface BatchItem {
  index: number;
  raw?: RawAction;
  allowUnsafeExternalContent: boolean;
}

export type MappedHookOutcome =
  | { kind: "no_match" }
  | { kind: "skip"; mappingId: string; /** Why, when a preset decided it (shown by the dry run). */ reason?: string }
  /** A sender's liveness check (GitHub's `ping`): 200 `{"ok":true,"pong":true}`, no run. */
  | { kind: "pong"; mappingId: string }
  | { kind: "action"; mappingId: string; raw: RawAction; allowUnsafeExternalContent: boolean; response?: ResponseRenderer }
  /** A forEach mapping: one action per array element, accepted together or not at all. */
  | { kind: "batch"; mappingId: string; path: string; items: BatchItem[]; response?: ResponseRenderer }
  /** A sender's URL verification (Slack `url_verification`): answered 200 with `body`, no run. */
  | { kind: "challenge"; mappingId: string; body: Record<string, unknown> };

/**
 * The mapping a request matched, found once (SPEC §4.1 "One accept path"): the
 * idempotency key and the action both come from it.
 */
export interface MappingSelection {
  mappingId: string;
  /** The key of the mapping's `idempotencyKey` template; undefined when it has none (or it renders empty). */
  idempotencyKey(): string | undefined;
  /** What happened at the sender (the mapping's `event` template or its verify scheme's default); undefined when none. */
  event?(): string | undefined;
  /** Renders the templates / runs the transform. Errors are `transform_failed` HookErrors. */
  resolve(): Promise<Result<MappedHookOutcome>>;
}

/** Implemented by the mapping engine (src/mappings/engine.ts). */
export interface MappedHookResolver {
  /** The first mapping that matches the request, or undefined (the hook answers 404). */
  select(input: MappedHookInput): MappingSelection | undefined;
}

/** Implemented by src/runs/dispatcher.ts. */
export interface Dispatcher {
  /** Enqueues the (wrapped) text on the main session; requests a heartbeat for mode "now". */
  wake(action: WakeAction, source: ActionSource): Promise<Result<DispatchResult>>;
  /**
   * Persists the run and schedules it; resolves once the run is stored (with the other
   * runs of its event-loop turn), never waits for it to run. `overloaded` / `shutting_down` errors.
   */
  agent(action: AgentAction, source: ActionSource, opts?: { idempotencyKey?: string }): Promise<Result<DispatchResult>>;
  /**
   * Persists several runs in one transaction and schedules them: all are accepted or
   * none (`overloaded` when they do not all fit the queue). Results in input order.
   */
  agentBatch(
    runs: ReadonlyArray<{ action: AgentAction; source: ActionSource; idempotencyKey?: string }>,
  ): Promise<Result<Array<Extract<DispatchResult, { kind: "agent" }>>>>;
}

/** Implemented by src/intake/idempotency/idempotency-guard.ts (durable). */
export interface IdempotencyGuard {
  /**
   * Runs `handle` at most once per (scope, key) within the TTL. A repeat with the same
   * body hash gets the stored response with `replayed: true`; a different body hash
   * gets `idempotency_key_reused`. Concurrent duplicates wait for the first.
   */
  handle(input: { scope: string; key: string; bodyHash: string }, handle: () => Promise<HookResponse>): Promise<HookResponse & { replayed?: boolean }>;
}

/** Read access to runs for `GET {path}/runs/<id>`; asynchronous where the store is remote (SPEC §16). */
export interface RunLookup {
  get(id: string): RunRecord | undefined | Promise<RunRecord | undefined>;
}

/** What the hooks pipeline reports for metrics (SPEC §11); implemented over the host's metrics port by src/plugin/hook-metrics.ts. */
export interface PipelineMetrics {
  /**
   * A request the hooks router answered: its hook name as routed (undefined when
   * the path named none), the status, and the seconds since it entered the router.
   * `accepted` is given for answers of the hook handler (wake, agent, mapped hooks),
   * with `replayed` for an idempotent replay.
   */
  answered(hook: string | undefined, status: number, seconds: number, accepted?: { replayed: boolean }): void;
  /** A request on a verified path whose signature was refused (missing, wrong or expired). */
  signatureFailed(scheme: string): void;
}

/** The pipeline's metrics where the host keeps none, passed visibly (a host metrics port absent, the Postgres store): nothing is counted. */
export const NO_METRICS: PipelineMetrics = Object.freeze({ answered() {}, signatureFailed() {} });
