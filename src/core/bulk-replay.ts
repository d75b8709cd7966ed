/** What a bulk replay answers (src/intake/bulk-replay.ts makes it; the ledger route, the inspector and the CLI show it). */

/** The filter of a bulk replay: the listing's own parameters (`hook`, `status`, `since`, `search`), as given. */
export const BULK_FILTER_PARAMS = ["hook", "status", "since", "search"] as const;
export type BulkReplayFilter = Partial<Record<(typeof BULK_FILTER_PARAMS)[number], string>>;

export interface BulkReplayPreview {
  filter: BulkReplayFilter;
  /** How many deliveries the confirmation replays. */
  count: number;
  /** Deliveries the filter matches that are not replayed (replays, refused before authentication, stored without body). */
  notReplayable: number;
  max: number;
  /** ISO time: the matches are those received up to it. */
  until: string;
  /** The oldest PREVIEW_IDS of them, oldest first (the order they are replayed in). */
  ids: string[];
  /** What the confirmation sends back. */
  confirm: string;
  /** ISO time after which `confirm` has expired. */
  expiresAt: string;
}

export interface BulkReplayItem {
  /** The delivery replayed. */
  replayOf: string;
  /** The new delivery (absent when the replay could not even start: `code` says why). */
  deliveryId?: string;
  status: number;
  code?: string;
}

export interface BulkReplayResult {
  filter: BulkReplayFilter;
  count: number;
  /** How many replays were answered with an error (status ≥ 400). */
  failed: number;
  replayed: BulkReplayItem[];
  /** True when this confirmation was answered before (nothing was replayed again). */
  repeated: boolean;
}

export interface BulkReplayer {
  /** Counts what a filter would replay. Throws a HookError (400) for a bad filter or one over the cap. */
  preview(query: Record<string, string>): Promise<BulkReplayPreview>;
  /** Replays the previewed matches once (query: the filter and `confirm`). Throws a HookError (400/409) when it replays nothing. */
  replay(query: Record<string, string>, client: string): Promise<BulkReplayResult>;
}
