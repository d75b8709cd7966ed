/**
 * `idempotencyKey` on a mapping (SPEC §6.1): a sender that puts its event id only
 * in the body (Stripe) is deduplicated by the rendered template when the request
 * has no idempotency header; a header still takes precedence.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

describe("idempotencyKey template", () => {
  let h: PluginApp;
  beforeEach(async () => {
    h = await startPluginApp({
      hooks: { mappings: [{ id: "billing", match: { path: "billing" }, messageTemplate: "Event {{ payload.type }}", idempotencyKey: "{{ payload.id }}" }] },
    });
  });
  afterEach(() => h.close());

  const post = (body: object, headers: Record<string, string> = {}) =>
    request(h.app).post("/hooks/billing").set("Authorization", `Bearer ${TEST_TOKEN}`).set(headers).send(body);

  test("a retry with the same body id and no header replays the first run", async () => {
    const event = { id: "evt_1", type: "invoice.paid" };
    const first = await post(event);
    expect(first.status).toBe(202);
    const retry = await post(event);
    expect(retry.status).toBe(202);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.body.runId).toBe(first.body.runId);
  });

  test("another id is another run", async () => {
    const first = await post({ id: "evt_1", type: "a" });
    const second = await post({ id: "evt_2", type: "a" });
    expect(second.status).toBe(202);
    expect(second.headers["idempotent-replayed"]).toBeUndefined();
    expect(second.body.runId).not.toBe(first.body.runId);
  });

  test("the same rendered key with a different body is idempotency_key_reused", async () => {
    await post({ id: "evt_1", type: "a" });
    const other = await post({ id: "evt_1", type: "b" });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("idempotency_key_reused");
  });

  test("an idempotency header takes precedence over the template", async () => {
    const first = await post({ id: "evt_1", type: "a" }, { "Idempotency-Key": "k-1" });
    const second = await post({ id: "evt_1", type: "a" }, { "Idempotency-Key": "k-2" });
    expect(second.status).toBe(202);
    expect(second.headers["idempotent-replayed"]).toBeUndefined();
    expect(second.body.runId).not.toBe(first.body.runId);
  });

  test("a body without the id renders an empty key: no deduplication", async () => {
    const first = await post({ type: "a" });
    const second = await post({ type: "a" });
    expect(second.status).toBe(202);
    expect(second.body.runId).not.toBe(first.body.runId);
  });
});
