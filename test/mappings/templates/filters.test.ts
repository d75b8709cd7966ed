/**
 * Regression (SPEC §9, §14: no request holds the event loop for 50 ms): `truncate`
 * turned its whole input into an array of characters to keep the first N. A
 * `forEach` mapping with `{{ payload.body | truncate: 20 }}` did that once per item:
 * one 250 KB request with 100 items built 100 arrays of 250 000 characters and held
 * the loop for about a second. The filter now walks only the characters it keeps.
 * Likewise `{{ payload | json | truncate: 20 }}` stringified the whole payload once per
 * item (100 × 250 KB of JSON, ~0.4 s): a request now stringifies each object once.
 * And `{{ payload.body | upper | truncate: 5 }}` upper-cased the whole field in every item
 * (100 × 250 KB, 60–100 ms): a request now maps each long text once per case.
 * Sizes and counts are asserted (the arrays Array.from and the JSON texts JSON.stringify
 * built during the request), not times.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const MAPPINGS = [
  { id: "cut", match: { path: "cut" }, action: "wake", forEach: "items", textTemplate: "{{ index }}: {{ payload.body | truncate: 20 }}" },
  {
    id: "json-cut",
    match: { path: "json-cut" },
    action: "wake",
    forEach: "items",
    textTemplate: "{{ index }}: {{ payload | json | truncate: 20 }} {{ payload.meta | upper }}",
  },
  {
    id: "case-cut",
    match: { path: "case-cut" },
    action: "wake",
    forEach: "items",
    textTemplate: "{{ index }}: {{ payload.body | upper | truncate: 5 }} {{ payload.body | lower | truncate: 5 }}",
  },
];

/** 240 KB of JSON, serialised here (before JSON.stringify is watched). */
const ROWS_TEXT = JSON.stringify({
  items: Array.from({ length: 100 }, (_, i) => i),
  meta: { n: 1 },
  rows: Array.from({ length: 12_000 }, (_, i) => ({ i, v: "ab" })),
});

let h: PluginApp;
let built: number[];
let stringified: number[];
beforeAll(async () => {
  h = await startPluginApp({ hooks: { mappings: MAPPINGS } });
});
afterAll(() => h.close());
beforeEach(() => {
  built = [];
  stringified = [];
  const stringify = JSON.stringify;
  jest.spyOn(JSON, "stringify").mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
    const out = stringify(...args);
    if (typeof out === "string") stringified.push(out.length);
    return out;
  });
  const from = Array.from;
  jest.spyOn(Array, "from").mockImplementation(((...args: Parameters<typeof Array.from>) => {
    const out = from(...args);
    built.push(out.length);
    return out;
  }) as typeof Array.from);
});
afterEach(() => jest.restoreAllMocks());

describe("truncate", () => {
  it("a 250 KB field truncated in each of 100 forEach items is cut without splitting the whole field into characters", async () => {
    const body = { items: Array.from({ length: 100 }, (_, i) => i), body: "é".repeat(125_000) };
    const res = await request(h.app).post("/hooks/cut").set(bearer).send(body);
    expect(res.status).toBe(200);
    expect(res.body.events).toBe(100);
    expect(Math.max(0, ...built)).toBeLessThan(1000);
    await h.host.waitForSystemEvents(100);
    expect(h.host.systemEvents[99]!.text).toContain(`\n99: ${"é".repeat(20)}…\n`);
  });

  it("keeps a text of at most N characters whole, and never splits a surrogate pair", async () => {
    const before = h.host.systemEvents.length;
    const res = await request(h.app)
      .post("/hooks/cut")
      .set(bearer)
      .send({ items: [0, 1], body: `${"😀".repeat(19)}x😀` });
    expect(res.status).toBe(200);
    await h.host.waitForSystemEvents(before + 2);
    expect(h.host.systemEvents[before]!.text).toContain(`\n0: ${"😀".repeat(19)}x…\n`);
  });
});

describe("json and other filters of an object, in every forEach item", () => {
  it("a 250 KB payload rendered with | json | truncate in each of 100 items is stringified once", async () => {
    const before = h.host.systemEvents.length;
    const res = await request(h.app).post("/hooks/json-cut").set(bearer).set("Content-Type", "application/json").send(ROWS_TEXT);
    expect(res.status).toBe(200);
    expect(res.body.events).toBe(100);
    expect(stringified.filter((n) => n > 100_000)).toHaveLength(1);
    await h.host.waitForSystemEvents(before + 100);
    expect(h.host.systemEvents[before + 99]!.text).toContain(`\n99: ${ROWS_TEXT.slice(0, 20)}… {"N":1}\n`);
  });
});

describe("upper and lower of a long text, in every forEach item", () => {
  it("a 250 KB field upper- and lower-cased in each of 100 items is case-mapped once per case", async () => {
    const before = h.host.systemEvents.length;
    const mapped: number[] = [];
    for (const method of ["toUpperCase", "toLowerCase"] as const) {
      const original = String.prototype[method];
      jest.spyOn(String.prototype, method).mockImplementation(function (this: string) {
        if (this.length > 100_000) mapped.push(this.length);
        return original.call(this);
      });
    }
    const res = await request(h.app)
      .post("/hooks/case-cut")
      .set(bearer)
      .send({ items: Array.from({ length: 100 }, (_, i) => i), body: "Ab".repeat(125_000) });
    expect(res.status).toBe(200);
    expect(res.body.events).toBe(100);
    expect(mapped).toHaveLength(2);
    await h.host.waitForSystemEvents(before + 100);
    expect(h.host.systemEvents[before + 99]!.text).toContain("\n99: ABABA… ababa…\n");
  });
});
