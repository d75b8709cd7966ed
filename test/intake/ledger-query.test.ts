import { statusRange } from "../../src/core/inspection";
import { parseDeliveryQuery, parseRunQuery } from "../../src/intake/ledger/ledger-query";

describe("ledger query parsing", () => {
  it("applies the default limit and accepts the token carrier", () => {
    expect(parseDeliveryQuery({ token: "x" })).toEqual({ ok: true, value: { limit: 50 } });
  });

  it("reads every delivery filter", () => {
    const r = parseDeliveryQuery({ limit: "500", before: "0b5c-11", hook: "github", status: "4XX", since: "2026-01-31T12:00:00Z" });
    expect(r).toEqual({ ok: true, value: { limit: 500, before: "0b5c-11", hook: "github", status: [400, 499], since: Date.parse("2026-01-31T12:00:00Z") } });
  });

  it.each([
    ["404", [404, 404]],
    ["2xx", [200, 299]],
    ["5xx", [500, 599]],
    ["4x", undefined],
    ["0xx", undefined],
    ["4040", undefined],
  ])("status filter %s → %j", (raw, range) => {
    expect(statusRange(raw)).toEqual(range);
  });

  it.each([
    [{ limit: "1.5" }, "Query parameter limit must be a whole number from 1 to 500."],
    [{ limit: "" }, "Query parameter limit must be a whole number from 1 to 500."],
    [{ hook: "" }, "Query parameter hook must be a hook name of 1 to 200 characters."],
    [{ before: "a/b" }, "Query parameter before must be the id of a delivery (letters, digits and -)."],
    [{ since: "2026-13-45T00:00:00Z" }, "Query parameter since must be an ISO-8601 time such as 2026-01-31T12:00:00Z."],
    [{ search: "   " }, "Query parameter search must be 1 to 8 words of at most 200 characters in all."],
    [{ search: "a b c d e f g h i" }, "Query parameter search must be 1 to 8 words of at most 200 characters in all."],
    [{ search: "x".repeat(201) }, "Query parameter search must be 1 to 8 words of at most 200 characters in all."],
    [{ sort: "asc" }, "Unknown query parameter sort; this route accepts limit, before, hook, status, since, search."],
  ])("%j → 400 invalid_request: %s", (query, message) => {
    const r = parseDeliveryQuery(query);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.status).toBe(400);
    expect(r.error.code).toBe("invalid_request");
    expect(r.error.message).toBe(message);
  });

  it("runs: a status must be a run status; delivery filters are unknown there", () => {
    expect(parseRunQuery({ status: "failed", limit: "5" })).toEqual({ ok: true, value: { limit: 5, status: "failed" } });
    const bad = parseRunQuery({ status: "done" });
    expect(!bad.ok && bad.error.message).toBe("Query parameter status must be one of queued, running, succeeded, failed, timed_out, interrupted.");
    const unknown = parseRunQuery({ hook: "x" });
    expect(!unknown.ok && unknown.error.message).toBe("Unknown query parameter hook; this route accepts limit, status.");
  });
});
