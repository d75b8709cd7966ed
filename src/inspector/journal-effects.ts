/**
 * The journal effects of one delivery, for its dashboard page: which lines of
 * the gateway's journal (journal/journal.ts) the delivery's wake or runs caused.
 * The journal records no delivery id, so entries are matched by what they do
 * record (docs/dashboard.md, Decisions):
 *
 * - `system_event` with the `runId` of one of the delivery's runs (a run's
 *   summary), or — a wake — with `source` `hook:<hook>` written while the
 *   request was being handled (`receivedAt` … `receivedAt + latencyMs`);
 * - `agent_turn` and `system_events_consumed` on a run's `sessionKey` while that
 *   run ran (`startedAt` … `finishedAt`, open while it runs);
 * - `delivery` while a run ran whose text is that run's agent reply;
 * - `heartbeat`: the first one at or after a matched system event (the one that
 *   read it).
 *
 * Each effect is text (never markup), in journal order, with its line breaks (the
 * page keeps them) and the wrapper's SECURITY NOTICE folded to one line.
 */
import type { DeliverySummary, RunSummary } from "../core/inspection";
import { foldUntrustedNotice } from "../host-contract/untrusted-notice";
import type { JournalEntry } from "../host-contract/journal";

export interface JournalEffect {
  ts: string;
  /** `system event`, `agent turn`, `delivery`, `heartbeat`, `events consumed`. */
  kind: string;
  text: string;
}

/** Longest text shown of an event, a reply or a delivered message. */
export const EFFECT_TEXT_CHARS = 1000;

/** The text as a person reads it: the wrapper's SECURITY NOTICE folded to one line, then clipped. */
function clipEffectText(text: unknown): string {
  const s = typeof text === "string" ? foldUntrustedNotice(text) : "";
  return s.length > EFFECT_TEXT_CHARS ? `${s.slice(0, EFFECT_TEXT_CHARS)}… (${s.length} characters)` : s;
}

function describeEntry(e: JournalEntry): JournalEffect {
  switch (e.type) {
    case "system_event":
      return { ts: e.ts, kind: "system event", text: `on session ${e.sessionKey}${e.source ? ` from ${e.source}` : ""}: ${clipEffectText(e.text)}` };
    case "system_events_consumed":
      return { ts: e.ts, kind: "events consumed", text: `session ${e.sessionKey} took ${e.count} pending system event(s) into its turn` };
    case "agent_turn":
      return {
        ts: e.ts,
        kind: "agent turn",
        text: `on session ${e.sessionKey}: ${e.status} in ${e.durationMs} ms${e.reply !== undefined ? `; reply: ${clipEffectText(e.reply)}` : ""}${e.error ? `; error: ${clipEffectText(e.error)}` : ""}`,
      };
    case "delivery":
      return {
        ts: e.ts,
        kind: "delivery",
        text: `on channel ${e.channel}${e.to !== undefined ? ` to ${e.to}` : ""}${e.via ? ` via ${e.via}` : ""}: ${clipEffectText(e.text)}`,
      };
    case "heartbeat":
      return { ts: e.ts, kind: "heartbeat", text: `reason ${e.reason}, ${e.pending} pending system event(s)` };
    default:
      return { ts: e.ts, kind: e.type, text: "" };
  }
}

const at = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));

export function journalEffects(delivery: DeliverySummary, runs: ReadonlyArray<RunSummary | undefined>, entries: readonly JournalEntry[]): JournalEffect[] {
  const known = runs.filter((r): r is RunSummary => r !== undefined);
  const runIds = new Set(delivery.runIds);
  const from = Date.parse(delivery.receivedAt);
  const handledUntil = from + Math.ceil(delivery.latencyMs);
  const ran = (run: RunSummary, t: number) => {
    const start = at(run.startedAt);
    const end = at(run.finishedAt);
    return start !== undefined && t >= start && (end === undefined || t <= end);
  };
  const picked = new Set<JournalEntry>();
  const replies = new Map<RunSummary, string>();
  /** A matched system event not yet read by a heartbeat. */
  let unread = false;
  for (const e of entries) {
    const t = Date.parse(e.ts);
    if (!(t >= from)) continue;
    let hit = false;
    if (e.type === "system_event") {
      hit = e.runId !== undefined ? runIds.has(e.runId) : delivery.hook !== undefined && e.source === `hook:${delivery.hook}` && t <= handledUntil;
      if (hit) unread = true;
    } else if (e.type === "agent_turn" || e.type === "system_events_consumed") {
      const run = known.find((r) => r.sessionKey === e.sessionKey && ran(r, t));
      hit = run !== undefined;
      if (run && e.type === "agent_turn" && e.reply !== undefined) replies.set(run, e.reply.trim());
    } else if (e.type === "delivery") {
      hit = known.some((r) => ran(r, t) && replies.get(r) === e.text);
    } else if (e.type === "heartbeat") {
      hit = unread;
      unread = false;
    }
    if (hit) picked.add(e);
  }
  return entries.filter((e) => picked.has(e)).map(describeEntry);
}
