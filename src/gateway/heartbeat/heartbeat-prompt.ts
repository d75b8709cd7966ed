/**
 * The message of a heartbeat turn: drained system events, oldest first, in
 * batches that fit a character budget (`agents.defaults.heartbeat.maxPromptChars`).
 * An event that alone is longer than the budget is shortened to fit: its start
 * and its end are kept (the end holds the closing marker of wrapped hook content)
 * with a note saying how much was left out.
 */
import type { PendingSystemEvent } from "../sessions/session-types";
import { HEARTBEAT_TOKEN } from "../../host-contract/heartbeat-ack";

/** The smallest prompt budget: a batch is never planned (or split) below it. */
export const MIN_PROMPT_CHARS = 1000;
/** Characters kept from the end of a shortened event. */
const TAIL_CHARS = 200;

const header = (reason: string) => `Heartbeat (${reason}). System events since the last heartbeat, oldest first:`;
const FOOTER = `If nothing here needs the user's attention, reply with exactly ${HEARTBEAT_TOKEN}.`;
const eventLine = (e: PendingSystemEvent, text = e.text) => `- [${e.ts}] ${text}`;

function compose(reason: string, lines: readonly string[]): string {
  return [header(reason), ...lines, "", FOOTER].join("\n");
}

/** The prompt for exactly these events (no budget). */
export function heartbeatPrompt(reason: string, events: readonly PendingSystemEvent[]): string {
  return compose(
    reason,
    events.map((e) => eventLine(e)),
  );
}

export interface PromptBatch {
  /** The events the message carries, a prefix of the ones offered (at least one). */
  events: PendingSystemEvent[];
  message: string;
  /** Characters left out of a single event too long for the budget (0 when none). */
  omittedChars: number;
}

/** Does not split a surrogate pair at `i`. */
const safeCut = (text: string, i: number): number => {
  const code = text.charCodeAt(i);
  return i > 0 && code >= 0xdc00 && code <= 0xdfff ? i - 1 : i;
};

/** `text` shortened to `room` characters: its start, a note, its end. */
export function shortenText(text: string, room: number): { text: string; omitted: number } {
  if (text.length <= room) return { text, omitted: 0 };
  const note = (n: number) => `\n[… ${n} characters left out: this event is longer than one heartbeat prompt may be …]\n`;
  const tail = Math.min(TAIL_CHARS, Math.floor(room / 4));
  const headLen = Math.max(0, room - tail - note(text.length).length);
  const head = safeCut(text, headLen);
  const tailFrom = safeCut(text, text.length - tail);
  const omitted = tailFrom - head;
  return { text: text.slice(0, head) + note(omitted) + text.slice(tailFrom), omitted };
}

/**
 * The longest prefix of `events` (at most `maxEvents`) whose message fits
 * `maxChars`; a first event too long on its own is shortened to fit.
 *
 * @example planBatch("hook:wake", session.pending, 100_000)
 */
export function planBatch(reason: string, events: readonly PendingSystemEvent[], maxChars: number, maxEvents = Infinity): PromptBatch {
  if (events.length === 0) throw new Error("planBatch: no events");
  const fixed = header(reason).length + FOOTER.length + 2;
  const lines: string[] = [];
  let size = fixed;
  for (const e of events) {
    if (lines.length >= maxEvents) break;
    const l = eventLine(e);
    if (size + l.length + 1 > maxChars) break;
    lines.push(l);
    size += l.length + 1;
  }
  if (lines.length > 0) return { events: events.slice(0, lines.length), message: compose(reason, lines), omittedChars: 0 };
  const first = events[0]!;
  const room = Math.max(0, maxChars - fixed - 1 - eventLine(first, "").length);
  const short = shortenText(first.text, room);
  return { events: [first], message: compose(reason, [eventLine(first, short.text)]), omittedChars: short.omitted };
}
