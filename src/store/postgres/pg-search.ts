/**
 * The ledger's search in Postgres full-text terms (`DeliveryQuery.search`, SPEC §13,
 * §16): every word must occur, each also as a prefix (`pull` finds `pull_request`). A
 * word is cut into the letters-and-digits tokens Postgres's parser makes of it, each
 * quoted as a lexeme with `:*`, joined by `&`: nothing a user types is tsquery syntax
 * (`|`, `!`, `<->`, `:`). What is indexed (pg-ledger.ts): hook, event, status and the
 * body's first SEARCH_BODY_CHARS characters, cut into the same tokens (`searchTokens`:
 * Postgres's own parser would keep `pull_request.opened` whole, as a host name), with the
 * `simple` configuration (no stemming, no stop words: a payload's words are not prose).
 *
 * Each distinct token is one term (`a.a.a…` is `'a':*`).
 *
 * @example tsQuery('pull_request "main"') // "'pull':* & 'request':* & 'main':*"
 */
import { MAX_SEARCH_WORDS, searchWords } from "../../core/inspection";

const TOKEN = /[\p{L}\p{N}]+/gu;

/** The text the index is built from: the letters-and-digits tokens of `text`, one space between. */
export function searchTokens(text: string): string {
  return (text.match(TOKEN) ?? []).join(" ");
}

/** The `to_tsquery('simple', …)` text for `search`; undefined when it has no word. */
export function tsQuery(search: string): string | undefined {
  const tokens = searchWords(search)
    .slice(0, MAX_SEARCH_WORDS)
    .flatMap((w) => w.match(TOKEN) ?? []);
  if (tokens.length === 0) return undefined;
  // Each distinct token once: `a.a.a…` (100 tokens of one letter) is one term, as in SQLite's search (ledger-search.ts).
  return [...new Set(tokens.map((t) => t.toLowerCase()))].map((t) => `'${t}':*`).join(" & ");
}
