/**
 * Regression (SPEC §9, §14: no request holds the event loop for 50 ms): `truncate`
 * turned its whole input into an array of characters to keep the first N. A
 * `forEach` mapping with `{{ payload.body | truncate: 20 }}` did that once per item:
 * one 250 KB request with 100 items built 100 arrays of 250 000 characters and held
 * the loop for about a second. The filter now walks only the characters it keeps.
 * Sizes are asserted (the arrays Array.from built during the request), not times.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const MAPPINGS = [{ id: "cut", match: { path: "cut" }, action: "wake", forEach: "items", textTemplate: "{{ index }}: {{ payload.body | truncate: 20 }}" }];

let h: PluginApp;
let built: number[];
beforeAll(async () => {
  h = await startPluginApp({ hooks: { mappings: MAPPINGS } });
});
afterAll(() => h.close());
beforeEach(() => {
  built = [];
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
    const res = await request(h.app).post("/hooks/cut").set(bearer).send({ items: [0, 1], body: `${"😀".repeat(19)}x😀` });
    expect(res.status).toBe(200);
    await h.host.waitForSystemEvents(before + 2);
    expect(h.host.systemEvents[before]!.text).toContain(`\n0: ${"😀".repeat(19)}x…\n`);
  });
});
