/**
 * Regression (SPEC §9 amplification, §14 no request holds the loop for long): a `forEach`
 * mapping without a template (its transform setting none) sends each element the default content — the whole payload as
 * indented JSON, cut at 16 000 characters — and built it by stringifying the whole payload
 * once per element: 100 elements of a 240 KB body stringified 24 MB (150–350 ms of the event
 * loop) for one request, while the templates of the same request reuse the request's render
 * memo and stringify it once. The default content now takes the payload's JSON from that memo:
 * once per request. Sizes are asserted (the strings JSON.stringify built), not times.
 */
import request from "supertest";
import { DEFAULT_CONTENT_MAX_CHARS } from "../../src/mappings/default-content";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { FIXTURES, recordStringified, TRANSFORM_FIXTURES } from "./helpers";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const ITEMS = 50;
/** About 240 KB: 50 elements of 4 700 characters (under hooks.maxBodyBytes, 256 KiB). */
const body = JSON.stringify({ events: Array.from({ length: ITEMS }, (_, i) => ({ i, pad: "y".repeat(4700) })) });

let h: PluginApp;
let built: number[];
beforeAll(async () => {
  // A transform that keeps the mapping's action: with no template, each element's text is the default content.
  const mappings = [{ id: "batch", match: { path: "batch" }, action: "wake", forEach: "events", transform: { module: "keep.js" } }];
  h = await startPluginApp({ configDir: FIXTURES, hooks: { mappings, transformsDir: TRANSFORM_FIXTURES } });
});
afterAll(() => h.close());
beforeEach(() => void (built = recordStringified()));
afterEach(() => jest.restoreAllMocks());

describe("the default content of a forEach mapping without a template", () => {
  it("stringifies the whole payload once per request, not once per element", async () => {
    const res = await request(h.app).post("/hooks/batch").set(bearer).set("Content-Type", "application/json").send(body);
    expect([res.status, res.body]).toEqual([200, { ok: true, runs: [], events: ITEMS, mapping: "batch" }]);
    // Strings the size of the payload: one (its compact JSON), not one per element.
    expect(built.filter((n) => n >= body.length).length).toBe(1);
    await h.host.waitForSystemEvents(ITEMS);
    const indented = JSON.stringify(JSON.parse(body), null, 2);
    for (const e of h.host.systemEvents)
      expect(e.text).toContain(
        `Webhook "batch" (mapping batch) received this payload:\n${indented.slice(0, DEFAULT_CONTENT_MAX_CHARS)}\n… (payload cut at ${DEFAULT_CONTENT_MAX_CHARS} characters)`,
      );
  });
});
