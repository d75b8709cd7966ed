/**
 * Regression: `hooks.transformTimeoutMs` bounded each transform call, and a `forEach` mapping
 * calls its transform once per item, so a fan-out of 30 items of 100 ms each held the request
 * for 3 s under a 1000 ms limit (and 100 items × the limit could hold it for 100 times the
 * limit). The limit is the request's: every transform call of one request (a fan-out's items
 * together) shares one budget, and when it is spent the request answers what the per-call
 * limit answered, 500 `transform_failed`, with the cause logged naming the key.
 *
 * The whole plugin on the fake host, with a real transform module (fixtures/transforms/slow-item.js).
 * Asserted by what is answered, never by a time: items each within the limit but together
 * beyond it answer 500 (with a limit per call they were all run, 200).
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { FIXTURES, TRANSFORM_FIXTURES } from "../helpers";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const LIMIT_MS = 1000;
const items = (n: number, ms = 100) => ({ events: Array.from({ length: n }, () => ({ ms })) });

let h: PluginApp;
beforeAll(async () => {
  const mappings = [{ id: "batch", match: { path: "batch" }, action: "wake", forEach: "events", transform: { module: "slow-item.js" } }];
  h = await startPluginApp({ configDir: FIXTURES, hooks: { transformTimeoutMs: LIMIT_MS, mappings, transformsDir: TRANSFORM_FIXTURES } });
});
afterAll(() => h.close());

describe("hooks.transformTimeoutMs bounds the transform calls of a whole request", () => {
  it("a forEach of 3 items of 600 ms, each within the 1000 ms limit but not together, answers 500 transform_failed (was: 200, every item run)", async () => {
    const res = await request(h.app).post("/hooks/batch").set(bearer).send(items(3, 600));
    expect([res.status, res.body]).toEqual([500, { ok: false, code: "transform_failed", error: "The hook's transform failed." }]);
    expect(h.host.systemEvents).toEqual([]);
    const logged = h.host.logs.find((l) => l.level === "error" && l.message === "transform failed");
    expect(logged?.meta).toMatchObject({
      mappingId: "batch",
      reason: "timeout",
      cause: `the transform did not finish within ${LIMIT_MS} ms (hooks.transformTimeoutMs, shared by every transform call of the request)`,
    });
  });

  it("a forEach whose items together stay within the budget runs every item", async () => {
    const before = h.host.systemEvents.length;
    const res = await request(h.app).post("/hooks/batch").set(bearer).send(items(2));
    expect(res.status).toBe(200);
    expect(h.host.systemEvents.slice(before).map((e) => e.text)).toEqual([expect.stringContaining("item 0"), expect.stringContaining("item 1")]);
  });
});
