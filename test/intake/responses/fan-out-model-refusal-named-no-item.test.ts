/**
 * A fan-out refuses the whole request when an element is bad, naming each problem
 * `items[<index>].<field>` (docs/responses.md "Fan-out"). An element refused with a
 * code of its own — a model outside the allow-list (`model_not_allowed`) — was
 * answered with `details: [{ field: "model" }]`: the sender could not tell which of
 * its items to fix, and the other items' problems were dropped, so a sender fixed
 * one item per round trip. Now every problem is listed under its item; the element's
 * own code is kept when it is the only problem, as for a single action.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const MODEL_RULE = "model is not in the allowed models list (agents.defaults.models); use one of: openai/gpt-4o-mini (alias mini)";

let h: PluginApp;
beforeEach(async () => {
  h = await startPluginApp({
    models: [{ ref: "openai/gpt-4o-mini", alias: "mini" }],
    extraConfig: { agents: { defaults: { models: { "openai/gpt-4o-mini": { alias: "mini" } } } } },
    hooks: { mappings: [{ id: "batch", match: { path: "batch" }, forEach: "items", messageTemplate: "{{ item.text }}", model: "{{ item.model }}" }] },
  });
});
afterEach(() => h.close());

const post = (items: unknown[]) => request(h.app).post("/hooks/batch").set(bearer).send({ items });

describe("fan-out: an element refused with a code of its own", () => {
  it("a model outside the allow-list in item 2 → 400 model_not_allowed naming items[2].model (regression: details named only model)", async () => {
    const res = await post([
      { text: "a", model: "mini" },
      { text: "b", model: "mini" },
      { text: "c", model: "openai/gpt-5" },
    ]);
    expect([res.status, res.body]).toEqual([
      400,
      { ok: false, code: "model_not_allowed", error: `${MODEL_RULE}.`, details: [{ field: "items[2].model", message: MODEL_RULE }] },
    ]);
    expect(h.host.turns).toHaveLength(0);
  });

  it("beside another item's field problem → 400 invalid_payload listing both under their items (regression: item 1's problem was dropped)", async () => {
    const res = await post([
      { text: "a", model: "mini" },
      { text: "", model: "mini" },
      { text: "c", model: "openai/gpt-5" },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_payload");
    expect(res.body.details).toEqual([
      { field: "items[1].message", message: "message must not be empty or blank" },
      { field: "items[2].model", message: MODEL_RULE },
    ]);
    expect(res.body.error).toBe(`Invalid items of mapping batch (2 problems): message must not be empty or blank; ${MODEL_RULE}.`);
    expect(h.host.turns).toHaveLength(0);
  });
});
