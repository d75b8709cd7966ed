/**
 * The ledger's search (`DeliveryQuery.search`): the words a user typed, as an FTS5
 * query over `deliveries_fts` (migration 4: hook, event, status, the body's first
 * 64 KiB). Every word must occur, each also as a prefix (`pull` finds `pull_request`);
 * each is quoted, so nothing a user types is FTS syntax (`OR`, `NEAR`, `col:`, `*`).
 *
 * @example
 *   ftsQuery('pull_request "main"') // → '"pull_request"* """main"""*'
 */
import { MAX_SEARCH_WORDS, searchWords } from "../host-contract/inspection";

/** The FTS5 MATCH text for `search`; undefined when it has no word. */
export function ftsQuery(search: string): string | undefined {
  const words = searchWords(search).slice(0, MAX_SEARCH_WORDS);
  if (words.length === 0) return undefined;
  return words.map((w) => `"${w.replace(/"/g, '""')}"*`).join(" ");
}
