/**
 * Bulk replay by filter (SPEC §11, §13): every delivery a filter matches (for example every 5xx of
 * one hook in the last hour, after an outage) replayed once, each through the single replay
 * (src/intake/replay.ts: the accept path, a new delivery with `replayOf`). Two steps:
 *
 * - **preview**: the filter's matches up to now (`until`) are counted — at most MAX_BULK_REPLAY, else
 *   400 `bulk_replay_too_large` — and answered with a `confirm` value that binds them: an HMAC (a key
 *   of this process) over the filter, `until` and the matched ids.
 * - **confirm** (the same filter and `confirm`): the matches up to `until` are read again; only when
 *   they are exactly the previewed ones (same HMAC) are they replayed, oldest first, else 409
 *   `bulk_replay_changed` and nothing is replayed. So nothing unseen is ever replayed (a delivery
 *   arriving after the preview is past `until`).
 *
 * "Once": the answer of a confirmation is kept (by its `confirm`, while it is valid), so a
 * confirmation sent again — a double submit, a retry after a lost answer — answers the same
 * replays (`repeated: true`) and makes no second set, also while the first is still running. A
 * `confirm` is valid 15 minutes and only in the process that answered the preview: after a
 * restart it is 409 `bulk_replay_expired`, never replayed again.
 *
 * Only originals match: a replay is never matched (a failed replay is replayed by replaying its
 * original again), nor a delivery refused before authentication or stored without its body (the
 * single replay refuses those); the preview counts those apart (`notReplayable`).
 *
 * @example
 *   const bulk = createBulkReplayer({ ledger, replay });
 *   const p = await bulk.preview({ hook: "github", status: "5xx" });        // { count: 20, confirm: "…", … }
 *   await bulk.replay({ hook: "github", status: "5xx", confirm: p.confirm }, "127.0.0.1");
 */
import crypto from "node:crypto";
import { HookError, hookErrors } from "../core/errors";
import type { LedgerListQuery } from "../store/ledger-rows";
import type { DeliverySummary } from "../core/inspection";
import { parseBulkReplayQuery } from "./ledger/ledger-query";
import type { Replayer } from "./ledger/ledger-routes";
import type { BulkReplayer, BulkReplayFilter, BulkReplayItem, BulkReplayResult } from "../core/bulk-replay";

/** The most deliveries one bulk replay replays. */
export const MAX_BULK_REPLAY = 1000;
/** How long a preview's `confirm` can be confirmed. */
export const BULK_PREVIEW_TTL_MS = 15 * 60_000;
/** How many ids (the oldest) a preview names. */
export const PREVIEW_IDS = 20;
/** How many answered confirmations are kept (each at most MAX_BULK_REPLAY items). */
const KEPT_RESULTS = 64;
/** `<process>.<until, base 36>.<count>.<hmac>`: fixed character sets between the dots (no backtracking). */
const CONFIRM_FORM = /^([0-9a-f]{8})\.([0-9a-z]{1,11})\.(\d{1,4})\.([0-9a-f]{32})$/;

/** What a bulk replay reads of the ledger: the SQLite ledger, or Postgres (pg-ledger.ts). */
export interface BulkReplayLedger {
  /** Newest first. */
  list(query: LedgerListQuery): DeliverySummary[] | undefined | Promise<DeliverySummary[] | undefined>;
  /** Writes the rows already answered (their group commit), so a preview counts them. */
  flush(): void | Promise<void>;
}

export interface BulkReplayerDeps {
  ledger: BulkReplayLedger;
  /** The single replay (src/intake/replay.ts). */
  replay: Replayer;
  clock?: () => number;
  /** A delivery that could not be read to be replayed (logged by the caller, without content). */
  onUnreadable?: (id: string, e: unknown) => void;
}

/** The matches of a filter, oldest first, and what else it matches. */
interface Matches {
  ids: string[];
  notReplayable: number;
}

export function createBulkReplayer(deps: BulkReplayerDeps): BulkReplayer {
  const clock = deps.clock ?? Date.now;
  const key = crypto.randomBytes(32);
  const processId = crypto.randomBytes(4).toString("hex");
  const answered = new Map<string, { expires: number; result: Promise<BulkReplayResult> }>();

  async function matches(list: LedgerListQuery, until: number): Promise<Matches> {
    // Rows of the current group commit are written first, so a preview counts what was answered before it.
    await deps.ledger.flush();
    const originals = (await deps.ledger.list({ ...list, until, originals: true, limit: MAX_BULK_REPLAY + 1 })) ?? [];
    if (originals.length > MAX_BULK_REPLAY) throw hookErrors.bulkReplayTooLarge({ count: `more than ${MAX_BULK_REPLAY}`, max: MAX_BULK_REPLAY });
    const all = (await deps.ledger.list({ ...list, until, limit: MAX_BULK_REPLAY * 2 + 1 })) ?? [];
    return { ids: originals.map((d) => d.id).reverse(), notReplayable: Math.max(0, all.length - originals.length) };
  }

  function mac(list: LedgerListQuery, until: number, ids: readonly string[]): string {
    const filter = [list.hook ?? null, list.status ?? null, list.since ?? null, list.search ?? null];
    return crypto
      .createHmac("sha256", key)
      .update(JSON.stringify([filter, until, ids]))
      .digest("hex")
      .slice(0, 32);
  }

  function forget(now: number): void {
    for (const [confirm, kept] of answered) if (kept.expires <= now) answered.delete(confirm);
    while (answered.size >= KEPT_RESULTS) answered.delete(answered.keys().next().value!);
  }

  async function replayAll(ids: readonly string[], client: string, filter: BulkReplayFilter): Promise<BulkReplayResult> {
    const replayed: BulkReplayItem[] = [];
    // One after the other, oldest first: the order the sender sent them, and no burst of runs at once.
    for (const id of ids) {
      try {
        const r = await deps.replay(id, client);
        const code = (r.response.body as { code?: unknown } | undefined)?.code;
        replayed.push({ replayOf: id, deliveryId: r.deliveryId, status: r.response.status, ...(typeof code === "string" ? { code } : {}) });
      } catch (e) {
        // Pruned since the check (404), or the store failed reading it: that one is not replayed, the others are (a retry must not replay them twice).
        const refusal = e instanceof HookError ? e : hookErrors.ledgerUnreadable({ cause: e });
        if (!(e instanceof HookError)) deps.onUnreadable?.(id, e);
        replayed.push({ replayOf: id, status: refusal.status, code: refusal.code });
      }
    }
    return { filter, count: replayed.length, failed: replayed.filter((r) => r.status >= 400).length, replayed, repeated: false };
  }

  return {
    async preview(query) {
      const q = parseBulkReplayQuery(query);
      if (!q.ok) throw q.error;
      const until = clock();
      const m = await matches(q.value.list, until);
      return {
        filter: q.value.filter,
        count: m.ids.length,
        notReplayable: m.notReplayable,
        max: MAX_BULK_REPLAY,
        until: new Date(until).toISOString(),
        ids: m.ids.slice(0, PREVIEW_IDS),
        confirm: `${processId}.${until.toString(36)}.${m.ids.length}.${mac(q.value.list, until, m.ids)}`,
        expiresAt: new Date(until + BULK_PREVIEW_TTL_MS).toISOString(),
      };
    },

    async replay(query, client) {
      const q = parseBulkReplayQuery(query);
      if (!q.ok) throw q.error;
      const confirm = q.value.confirm;
      const form = confirm === undefined ? null : CONFIRM_FORM.exec(confirm);
      if (!confirm || !form)
        throw hookErrors.queryParameterInvalid({ name: "confirm", rule: "must be the confirm value of a preview (the same request without confirm)" });
      const now = clock();
      forget(now);
      const kept = answered.get(confirm);
      if (kept) return { ...(await kept.result), repeated: true };
      const until = parseInt(form[2]!, 36);
      if (form[1] !== processId || until > now || now - until >= BULK_PREVIEW_TTL_MS)
        throw hookErrors.bulkReplayExpired({ minutes: BULK_PREVIEW_TTL_MS / 60_000 });
      const m = await matches(q.value.list, until);
      if (mac(q.value.list, until, m.ids) !== form[4]) throw hookErrors.bulkReplayChanged({ previewed: Number(form[3]), now: m.ids.length });
      const result = replayAll(m.ids, client, q.value.filter);
      answered.set(confirm, { expires: until + BULK_PREVIEW_TTL_MS, result });
      return result;
    },
  };
}
