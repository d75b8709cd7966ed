/**
 * Regression (review of issue 20's request path): a malformed idempotency key (`Idempotency-Key`
 * with a space, or over 255 characters) is refused live with 400 `invalid_payload` naming the
 * header, and nothing runs. The accept path only looked at the key when idempotency was on, so
 * the same request replayed from the ledger (idempotency off) was accepted and posted a system
 * event, and the dry run (`gateway webhooks test --delivery`, the dashboard's form) reported it
 * as accepted. SPEC §4.1/§11: replay and dry run are the live accept path — idempotency off
 * means no deduplication, not skipping the request's validation.
 *
 * The whole plugin (router → ledger in SQLite → replay, and the plugin's inspector) on the
 * fake host.
 */
import request from "supertest";
import { signHeaders } from "../helpers/signers";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const BAD_KEY = "order 42";
const SW_SECRET = `whsec_${Buffer.from("standard-webhooks-secret-0123456789").toString("base64")}`;
const RULE = "idempotency-key must be 1 to 255 printable ASCII characters without spaces";

describe("a malformed idempotency key refused live, accepted by replay and the dry run", () => {
  let h: PluginApp;
  beforeEach(async () => {
    h = await startPluginApp({
      hooks: {
        rateLimit: { enabled: false },
        mappings: [
          { id: "alerts", match: { path: "alerts" }, action: "wake", textTemplate: "alert: {{ payload.subject }}" },
          {
            id: "signed",
            match: { path: "signed" },
            action: "wake",
            textTemplate: "signed: {{ payload.subject }}",
            verify: { scheme: "standard-webhooks", secret: SW_SECRET },
          },
        ],
      },
    });
  });
  afterEach(() => h.close());

  const live = () =>
    request(h.app)
      .post("/hooks/alerts")
      .set({ ...AUTH, "Idempotency-Key": BAD_KEY, "Content-Type": "application/json" })
      .send({ subject: "disk" });

  it("live: 400 invalid_payload naming the header; its replay answers the same 400 and posts nothing", async () => {
    const first = await live();
    expect([first.status, first.body.code, first.body.details]).toEqual([400, "invalid_payload", [{ field: "idempotency-key", message: RULE }]]);
    const listed = async () => (await request(h.app).get("/hooks/deliveries?hook=alerts").set(AUTH)).body.deliveries as Array<{ id: string }>;
    await until(async () => (await listed()).length === 1, "the live delivery in the ledger");
    const replayed = await request(h.app)
      .post(`/hooks/deliveries/${(await listed())[0]!.id}/replay`)
      .set(AUTH);
    expect([replayed.status, replayed.body]).toEqual([first.status, first.body]);
    expect(h.host.systemEvents).toHaveLength(0);
  });

  it("the dry run of the same request reports the live refusal", async () => {
    const first = await live();
    expect(first.status).toBe(400);
    const dry = await h.host.inspectors[0]!.dryRun({
      hook: "alerts",
      body: JSON.stringify({ subject: "disk" }),
      headers: { "Content-Type": "application/json", "Idempotency-Key": BAD_KEY },
    });
    expect(dry.ok).toBe(false);
    expect(dry.lines.join("\n")).toContain(RULE);
    expect(h.host.systemEvents).toHaveLength(0);
  });

  it("on a verified path the signed message id keys the delivery, live and replayed alike: a stray malformed Idempotency-Key is not looked at (200 both)", async () => {
    const body = JSON.stringify({ subject: "disk" });
    const signed = await request(h.app)
      .post("/hooks/signed")
      .set({ ...(await signHeaders("standard-webhooks", SW_SECRET, body)), "Idempotency-Key": BAD_KEY, "Content-Type": "application/json" })
      .send(body);
    expect(signed.status).toBe(200);
    const listed = async () => (await request(h.app).get("/hooks/deliveries?hook=signed").set(AUTH)).body.deliveries as Array<{ id: string }>;
    await until(async () => (await listed()).length === 1, "the live delivery in the ledger");
    const replayed = await request(h.app)
      .post(`/hooks/deliveries/${(await listed())[0]!.id}/replay`)
      .set(AUTH);
    expect([replayed.status, replayed.body]).toEqual([signed.status, signed.body]);
    expect(h.host.systemEvents).toHaveLength(2);
  });
});
