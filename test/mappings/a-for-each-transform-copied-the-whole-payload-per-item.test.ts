/**
 * Regression (SPEC §14, no request holds the loop for long): a `forEach` mapping with a
 * transform copied the whole payload for each element's call (`structuredClone`), though most
 * such transforms read only `item`: 100 copies of a 240 KB body held the event loop 330–630 ms,
 * outside the transform time budget. The copy is now made when the transform first reads
 * `payload`: never for a transform that reads only `item`, and still a copy for one that reads
 * it (changing it changes nothing). Counts are asserted (the copies made), not times.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { FIXTURES, TRANSFORM_FIXTURES } from "./helpers";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const ITEMS = 40;
const body = JSON.stringify({ events: Array.from({ length: ITEMS }, (_, i) => ({ text: `event ${i}`, pad: "y".repeat(4000) })) });

let h: PluginApp;
let payloadCopies: number;
beforeAll(async () => {
  const mappings = [
    { id: "items", match: { path: "items" }, action: "wake", forEach: "events", transform: { module: "item-text.js" } },
    { id: "mutates", match: { path: "mutates" }, action: "wake", forEach: "events", transform: { module: "mutate-payload.js" } },
  ];
  h = await startPluginApp({ configDir: FIXTURES, hooks: { mappings, transformsDir: TRANSFORM_FIXTURES } });
});
afterAll(() => h.close());
beforeEach(() => {
  payloadCopies = 0;
  const clone = globalThis.structuredClone;
  jest.spyOn(globalThis, "structuredClone").mockImplementation(((value: unknown, options?: Parameters<typeof structuredClone>[1]) => {
    if (value !== null && typeof value === "object" && "events" in value) payloadCopies++;
    return clone(value, options);
  }) as typeof structuredClone);
});
afterEach(() => jest.restoreAllMocks());

describe("a forEach mapping's transform", () => {
  it("that reads only item copies no payload (it was copied once per element)", async () => {
    const res = await request(h.app).post("/hooks/items").set(bearer).set("Content-Type", "application/json").send(body);
    expect([res.status, res.body.events]).toEqual([200, ITEMS]);
    expect(payloadCopies).toBe(0);
    await h.host.waitForSystemEvents(ITEMS);
    expect(h.host.systemEvents.map((e) => e.text).filter((t) => t.includes("event 7")).length).toBe(1);
  });

  it("that changes payload gets a copy for each element: no element sees another's change", async () => {
    const res = await request(h.app).post("/hooks/mutates").set(bearer).set("Content-Type", "application/json").send(body);
    expect([res.status, res.body.events]).toEqual([200, ITEMS]);
    expect(payloadCopies).toBe(ITEMS);
    await h.host.waitForSystemEvents(2 * ITEMS);
    // Each element saw the original first event, never one a previous element changed.
    const seen = h.host.systemEvents.map((e) => /first: (.*?); item \d+/.exec(e.text)?.[1]).filter((t) => t !== undefined);
    expect(seen).toEqual(Array(ITEMS).fill("event 0"));
  });
});
