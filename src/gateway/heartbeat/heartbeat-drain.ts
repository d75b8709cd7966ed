/**
 * One heartbeat's drain of the main session (SPEC §7 "Bounded heartbeat
 * prompts"): the events pending when it starts go to the agent in batches whose
 * prompt (history included) fits `maxPromptChars`. A batch the runner fails is
 * split — the budget halves — and retried after a backoff; an event that fails
 * alone at the smallest budget is skipped for this heartbeat (it stays pending).
 * An event skipped in three heartbeats in which other batches went through is
 * set aside: the runner is working and refuses that event, so keeping it would
 * wedge the queue (its text stays in the journal). Failures never lose events:
 * when nothing gets through (the runner is down), the drain gives up after
 * `maxAttempts` consecutive failures and the events wait for the next heartbeat.
 */
import type { HostLogger } from "../../host-contract/host-api";
import type { Journal } from "../journal/journal";
import type { AgentTurns } from "../runners/agent-turns";
import type { PendingSystemEvent, SessionStore } from "../sessions/session-store";
import { MIN_PROMPT_CHARS, planBatch } from "./heartbeat-prompt";

export interface DrainOptions {
  reason: string;
  mainKey: string;
  sessions: SessionStore;
  turns: Pick<AgentTurns, "runBoundedTurn">;
  journal: Journal;
  logger: HostLogger;
  maxPromptChars: number;
  turnTimeoutMs: number;
  /** Aborted when the gateway stops: the drain ends, events stay pending. */
  signal: AbortSignal;
  /** Waits `ms` (rejects when the signal aborts). */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called with each successful turn's reply (delivery). */
  onReply: (reply: string | undefined) => Promise<void>;
  /** Skips per event id across heartbeats (kept by the caller). */
  strikes: Map<string, number>;
  /** Backoff before retry n (1-based); default 1 s doubling up to 30 s. */
  backoffMs?: (attempt: number) => number;
  /** Consecutive failures after which the drain gives up; default 12. */
  maxAttempts?: number;
  /** Skips after which an event is set aside; default 3. */
  maxStrikes?: number;
}

export interface DrainFailure {
  events: number;
  promptChars: number;
  status: string;
  error?: string;
}

export interface DrainReport {
  turns: number;
  consumed: number;
  failures: DrainFailure[];
  /** Events skipped in this heartbeat (still pending). */
  skipped: PendingSystemEvent[];
  /** Events set aside (consumed without reaching the agent). */
  setAside: PendingSystemEvent[];
  /** Characters left out of events too long for one prompt. */
  shortened: number;
  gaveUp: boolean;
}

export const defaultBackoffMs = (attempt: number): number => Math.min(30_000, 1000 * 2 ** (attempt - 1));

export async function drainPending(o: DrainOptions): Promise<DrainReport> {
  const backoffMs = o.backoffMs ?? defaultBackoffMs;
  const maxAttempts = o.maxAttempts ?? 12;
  const maxStrikes = o.maxStrikes ?? 3;
  const report: DrainReport = { turns: 0, consumed: 0, failures: [], skipped: [], setAside: [], shortened: 0, gaveUp: false };
  const queue = [...o.sessions.get(o.mainKey).pending];
  let budget = o.maxPromptChars;
  let failures = 0;

  while (queue.length > 0 && !o.signal.aborted) {
    if (failures > 0) {
      try {
        await o.sleep(backoffMs(failures), o.signal);
      } catch {
        break;
      }
    }
    const batch = planBatch(o.reason, queue, budget, budget <= MIN_PROMPT_CHARS ? 1 : Infinity);
    const result = await o.turns.runBoundedTurn({
      sessionKey: o.mainKey,
      message: batch.message,
      timeoutMs: o.turnTimeoutMs,
      signal: o.signal,
      maxPromptChars: budget,
      heartbeatEvents: batch.events,
    });
    if (o.signal.aborted) break;
    if (result.status === "ok") {
      queue.splice(0, batch.events.length);
      const count = o.sessions.consume(
        o.mainKey,
        batch.events.map((e) => e.id),
      );
      o.journal.append({ type: "system_events_consumed", sessionKey: o.mainKey, count });
      report.turns++;
      report.consumed += count;
      report.shortened += batch.omittedChars;
      failures = 0;
      await o.onReply(result.reply);
      continue;
    }

    failures++;
    const failure: DrainFailure = {
      events: batch.events.length,
      promptChars: result.promptChars,
      status: result.status,
      ...(result.error ? { error: result.error } : {}),
    };
    report.failures.push(failure);
    // A batch planned at the smallest budget holds one event: it failed alone.
    const single = budget <= MIN_PROMPT_CHARS;
    const nextBudget = single ? o.maxPromptChars : Math.max(MIN_PROMPT_CHARS, Math.floor(Math.min(budget, result.promptChars || budget) / 2));
    const giveUp = failures >= maxAttempts;
    o.journal.append({
      type: "heartbeat_batch_failed",
      reason: o.reason,
      ...failure,
      ...(giveUp ? { gaveUp: true } : single ? { skipped: batch.events[0]!.id } : { nextBudget }),
    });
    o.logger.warn(
      giveUp
        ? "heartbeat turn failed again; giving up until the next heartbeat (events stay pending)"
        : single
          ? "heartbeat turn failed for a single event; skipping it in this heartbeat (it stays pending)"
          : "heartbeat turn failed; splitting the batch and retrying with backoff",
      { reason: o.reason, ...failure, attempt: failures },
    );
    if (giveUp) {
      report.gaveUp = true;
      break;
    }
    if (single) report.skipped.push(queue.shift()!);
    budget = nextBudget;
  }

  if (report.turns > 0) setAsideRepeatOffenders(o, report, maxStrikes);
  return report;
}

/** Counts a skip against each skipped event (only when other batches went through) and sets aside those at the limit. */
function setAsideRepeatOffenders(o: DrainOptions, report: DrainReport, maxStrikes: number): void {
  for (const e of report.skipped) {
    const strikes = (o.strikes.get(e.id) ?? 0) + 1;
    o.strikes.set(e.id, strikes);
    if (strikes < maxStrikes) continue;
    o.strikes.delete(e.id);
    o.sessions.consume(o.mainKey, [e.id]);
    report.setAside.push(e);
    o.journal.append({
      type: "system_event_set_aside",
      sessionKey: o.mainKey,
      id: e.id,
      eventTs: e.ts,
      chars: e.text.length,
      ...(typeof e.meta?.source === "string" ? { source: e.meta.source } : {}),
    });
    o.logger.warn("system event set aside: the agent runner refused it alone in several heartbeats while other events went through", {
      id: e.id,
      chars: e.text.length,
      strikes,
    });
  }
}
