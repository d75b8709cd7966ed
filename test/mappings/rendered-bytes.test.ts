/**
 * Regression (SPEC §9 amplification is bounded): the bytes of an outcome's messages
 * were read as `text ?? message`, whatever the action's kind, so an agent action whose
 * transform also set `text` (here `""`) was counted by that field: its message passed
 * uncounted, however large.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { FIXTURES, TRANSFORM_FIXTURES } from "./helpers";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const MAX = 4096;

let h: PluginApp;
beforeAll(async () => {
  const mappings = [
    { id: "agent", match: { path: "agent-run" }, deliver: false, transform: { module: "text-and-message.js" } },
    { id: "wake", match: { path: "wake-up" }, action: "wake", transform: { module: "text-and-message.js" } },
  ];
  h = await startPluginApp({ configDir: FIXTURES, hooks: { maxRenderedBytes: MAX, mappings, transformsDir: TRANSFORM_FIXTURES } });
});
afterAll(() => h.close());

describe("the messages a transform sets are counted by the action's own field", () => {
  it("an agent message past hooks.maxRenderedBytes is refused even when the transform also sets an empty text", async () => {
    const res = await request(h.app)
      .post("/hooks/agent-run")
      .set(bearer)
      .send({ a: "y".repeat(1000) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      ok: false,
      code: "render_too_large",
      error: `The templates and messages of this request render to more than ${MAX} bytes (hooks.maxRenderedBytes); nothing was accepted.`,
    });
    expect(h.host.turns).toHaveLength(0);
  });

  it("within the limit the agent run is accepted", async () => {
    const res = await request(h.app)
      .post("/hooks/agent-run")
      .set(bearer)
      .send({ a: "y".repeat(500) });
    expect(res.status).toBe(202);
  });

  it("a wake counts its text: the empty text is refused as a wake's, not counted by the message", async () => {
    const res = await request(h.app)
      .post("/hooks/wake-up")
      .set(bearer)
      .send({ a: "y".repeat(1000) });
    expect([res.status, res.body.code]).toEqual([400, "invalid_payload"]);
  });
});
