/** Options of `createRunQueue` (run-queue.ts). */
import type { HostRuntime } from "../host-contract/host-api";
import type { RunsConfig } from "../config/types";
import type { ModuleLogger } from "../core/logger";
import type { PluginEmitter } from "../core/events";
import type { RunExecutor, RunStore } from "../core/runs";
import type { Clock } from "../core/clock";
import type { RecoveryDeps } from "./recovery";

export interface RunQueueOptions extends Pick<RecoveryDeps, "keys"> {
  store: RunStore;
  executor: RunExecutor;
  config: RunsConfig;
  /** Used to refuse runs addressed to the main session (defence in depth behind §5.1 confinement). */
  runtime: HostRuntime;
  logger: ModuleLogger;
  /** `run:finished` for runs recovered as interrupted (the executor emits the others). */
  emitter: PluginEmitter;
  /** Timestamps (createdAt, startedAt, finishedAt); default the system clock. */
  clock?: Clock;
  /** Run ids; default uuid v4. */
  idGen?: () => string;
  /** `Retry-After` seconds of an `overloaded` refusal; default 30. */
  overloadRetryAfterSeconds?: number;
  /** After the grace period, how long stop() waits for cancelled runs to settle; default 1000 ms. */
  cancelSettleMs?: number;
  /** Delay before retrying a run whose start, or a summary whose posting, could not be recorded; default 1000 ms. */
  retryDelayMs?: number;
  /** How long nothing starts after the host answered a turn `unavailable` (it drains or reloads); default 5000 ms. */
  hostUnavailablePauseMs?: number;
}
