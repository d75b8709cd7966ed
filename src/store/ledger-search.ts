/**
 * The ledger's search (`DeliveryQuery.search`): the terms of the words a user typed
 * (host-contract searchTerms: runs of letters and digits, as the index's tokenizer cuts
 * them), as an FTS5 query over `deliveries_fts` (migration 10: hook, event, status, the
 * body's first 64 KiB, `detail=none`). Every term must occur in the row, each matched
 * whole (`pull` finds `pull_request` and `pull-request`, not `pulled`); each is quoted,
 * so nothing a user types is FTS syntax (`OR`, `NEAR`, `col:`, `*`).
 *
 * What a search costs is bounded, whatever the rows hold: an index of `detail=none` keeps
 * only the ids of the rows a term occurs in (no positions), so each term is one walk over
 * at most the ledger's rows (`hooks.ledger.maxEntries`), and a search has at most
 * MAX_SEARCH_TERMS of them. There is no phrase (positions × rows on every candidate row:
 * 100 tokens of `a.a.a…` over 400 bodies of `a a a…` held the loop 4.3 s) and no prefix
 * (FTS5 merges the rows of every term with that prefix, over the whole index).
 *
 * @example
 *   ftsQuery('pull_request "Main"') // → '"pull" "request" "main"'
 */
import { MAX_SEARCH_TERMS, searchTerms, searchWords } from "../core/inspection";

/**
 * The FTS5 MATCH text for `search`: undefined when it has no word (no filter), null when
 * its words have no term (`!!!`: nothing can match).
 */
export function ftsQuery(search: string): string | null | undefined {
  if (searchWords(search).length === 0) return undefined;
  const terms = searchTerms(search).slice(0, MAX_SEARCH_TERMS);
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t}"`).join(" ");
}
