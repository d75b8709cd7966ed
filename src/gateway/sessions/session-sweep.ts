/**
 * Removal of idle hook sessions (SPEC §7 "Bounded disk"): each agent hook run keeps a
 * session (`hook:…`) whose files stay after the run; a session whose files were not
 * written for `session.hooks.retentionDays` is deleted — at start and then every hour.
 * Only `hook:` sessions: the main session and others are never swept. A session holding
 * pending events is kept, and one whose snapshot cannot be read is left alone (the damaged
 * state is reported when something reads it). Removal is two `unlink`s: a crash between
 * them leaves the other file, removed at the next sweep; on a full disk nothing is
 * written.
 *
 * @example
 *   const sweep = startSessionSweep(sessions, { dir, retentionDays: 7, logger });
 *   sweep.stop();
 */
import fs from "node:fs";
import type { HostLogger } from "../../host-contract/host-api";
import { sessionFiles } from "./session-files";
import type { SessionStore } from "./session-store";

export const SWEPT_SESSION_PREFIX = "hook:";

export interface SessionSweepOptions {
  dir: string;
  retentionDays: number;
  logger?: HostLogger;
  /** ms since the epoch; default Date.now. */
  clock?: () => number;
  /** Default one hour. */
  intervalMs?: number;
}

/** Removes hook sessions idle longer than the retention; returns the keys removed. */
export function sweepIdleSessions(store: SessionStore, opts: SessionSweepOptions): string[] {
  const cutoff = (opts.clock ?? Date.now)() - opts.retentionDays * 86_400_000;
  const removed: string[] = [];
  for (const session of sessionFiles(opts.dir)) {
    if (!session.name.startsWith("hook_")) continue;
    try {
      if (Math.max(...session.files.map((f) => fs.statSync(f).mtimeMs)) >= cutoff) continue;
      const key = session.key();
      if (key === undefined || !key.startsWith(SWEPT_SESSION_PREFIX)) continue;
      if (store.remove(key)) removed.push(key);
    } catch (e) {
      opts.logger?.warn("an idle hook session was not removed", { session: session.name, error: (e as Error).message });
    }
  }
  return removed;
}

/** Sweeps now and every `intervalMs` (unref'd) until `stop()`. */
export function startSessionSweep(store: SessionStore, opts: SessionSweepOptions): { stop(): void } {
  const run = () => {
    const removed = sweepIdleSessions(store, opts);
    if (removed.length > 0) opts.logger?.info("idle hook sessions removed", { removed: removed.length, retentionDays: opts.retentionDays });
  };
  run();
  const timer = setInterval(run, opts.intervalMs ?? 3_600_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
