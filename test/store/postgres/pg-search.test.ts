/**
 * The Postgres search's tsquery text (src/store/postgres/pg-search.ts): every word's
 * letters-and-digits tokens, each a quoted prefix lexeme, joined by `&`; nothing typed is
 * tsquery syntax. Regression (issue 35 finding 1, the Postgres side): `a.a.a…` (199
 * characters, 100 tokens of one letter) made 100 `'a':*` terms; each distinct token is now
 * one term, as in SQLite's search.
 */
import { searchTokens, tsQuery } from "../../../src/store/postgres/pg-search";

describe("the Postgres search's tsquery", () => {
  it("cuts words into prefix lexemes joined by &", () => {
    expect(tsQuery('pull_request "main"')).toBe("'pull':* & 'request':* & 'main':*");
    expect(searchTokens("pull_request.opened by octo-cat")).toBe("pull request opened by octo cat");
  });

  it("makes a.a.a… (100 tokens of one letter) one term, not 100", () => {
    const phrase = Array.from({ length: 100 }, () => "a").join(".");
    expect(tsQuery(phrase)).toBe("'a':*");
    expect(tsQuery("Main main MAIN")).toBe("'main':*");
  });

  it("keeps no tsquery syntax a user types, and has no query for no word", () => {
    expect(tsQuery("a | !b <-> c:d")).toBe("'a':* & 'b':* & 'c':* & 'd':*");
    expect(tsQuery('"" | !')).toBeUndefined();
  });
});
