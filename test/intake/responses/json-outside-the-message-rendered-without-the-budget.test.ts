/**
 * Regression (SPEC §9 amplification is bounded): `hooks.maxRenderedBytes` bounded a
 * template's rendering only when `json` was the last filter of a message template.
 * `{{ payload | json: 10 }}` in `name`, in a `response` body, or before another filter
 * (`| truncate: 50`) turned 240 KB of a 60-deep payload into a 72 MB string (the event
 * loop held meanwhile) before anything could refuse it. Now every template of a request
 * draws on one budget (src/mappings/rendered-bytes.ts): no string a rendering builds is
 * longer than what is left, and past it the request is 400 `render_too_large` with
 * nothing accepted. Sizes are asserted (the strings the json filter built), not times.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { FILTERS } from "../../../src/mappings/templates/filters";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const MIB = 1024 * 1024;
/** 240 KB: 60 levels of arrays around 120 001 zeros (the body stays under hooks.maxBodyBytes, 256 KiB). */
const deepBody = `{"deep":${"[".repeat(60)}0${",0".repeat(120_000)}${"]".repeat(60)}}`;
const MAPPINGS = [
  { id: "name", match: { path: "name" }, name: "{{ payload | json: 10 }}", messageTemplate: "hi", deliver: false },
  { id: "response", match: { path: "response" }, messageTemplate: "hi", deliver: false, response: { status: 200, body: { echo: "{{ payload | json: 10 }}" } } },
  { id: "not-last", match: { path: "not-last" }, messageTemplate: "{{ payload | json: 10 | truncate: 50 }}", deliver: false },
  { id: "session", match: { path: "session" }, sessionKey: "hook:{{ payload | json: 10 }}", messageTemplate: "hi", deliver: false },
  { id: "key", match: { path: "key" }, idempotencyKey: "{{ payload | json: 10 | truncate: 40 }}", messageTemplate: "hi", deliver: false },
  { id: "event", match: { path: "event" }, event: "{{ payload | json: 10 | truncate: 40 }}", messageTemplate: "hi", deliver: false },
];

let h: PluginApp;
let built: number[];
beforeAll(async () => {
  h = await startPluginApp({ hooks: { mappings: MAPPINGS } });
});
afterAll(() => h.close());
beforeEach(() => {
  built = [];
  const apply = FILTERS.json.apply;
  jest.spyOn(FILTERS.json, "apply").mockImplementation((...args) => {
    const out = apply(...args);
    if (typeof out === "string") built.push(out.length);
    return out;
  });
});
afterEach(() => jest.restoreAllMocks());

async function runsListed(): Promise<number> {
  const res = await request(h.app).get("/hooks/runs?limit=200").set(bearer);
  expect(res.status).toBe(200);
  return (res.body.runs as unknown[]).length;
}

describe("{{ payload | json: 10 }} anywhere but last in a message", () => {
  it.each(["name", "response", "not-last", "session", "key", "event"])(
    "in %s: 400 render_too_large, nothing accepted, no string built past the budget",
    async (path) => {
      const res = await request(h.app).post(`/hooks/${path}`).set(bearer).set("Content-Type", "application/json").send(deepBody);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        ok: false,
        code: "render_too_large",
        error: "The templates and messages of this request render to more than 1048576 bytes (hooks.maxRenderedBytes); nothing was accepted.",
      });
      expect(built.length).toBeGreaterThan(0);
      // The filter stops just past what is left: at most one more line (a newline and 60 levels of 10 spaces).
      expect(Math.max(...built)).toBeLessThanOrEqual(MIB + 1 + 600);
      expect(await runsListed()).toBe(0);
      expect(h.host.turns).toHaveLength(0);
    },
  );

  it("a small payload renders as before: the name, the response body and the truncated message", async () => {
    const small = { a: [1] };
    const before = await runsListed();
    const named = await request(h.app).post("/hooks/name").set(bearer).send(small);
    expect(named.status).toBe(202);
    const answered = await request(h.app).post("/hooks/response").set(bearer).send(small);
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ echo: JSON.stringify(small, null, 10) });
    const cut = await request(h.app).post("/hooks/not-last").set(bearer).send(small);
    expect(cut.status).toBe(202);
    expect(await runsListed()).toBe(before + 3);
  });
});
