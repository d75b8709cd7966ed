/**
 * Regression: a `stripe` or `slack` mapping without an `idempotencyKey` keyed no
 * idempotency, so each retry of one event (Stripe and Slack retry with the same
 * signed event id and a new timestamp) started another run. The signed body's
 * event id (Stripe's `id`, Slack's Events API `event_id`) is now the key on those
 * paths, and a retry whose other fields changed (Stripe's `pending_webhooks`
 * drops as other endpoints succeed) replays the first answer instead of 422.
 */
import request from "supertest";
import { signHeaders } from "../../helpers/signers";
import { startPluginApp, type PluginApp } from "../../helpers/plugin-app";

const STRIPE_SECRET = "whsec_test_secret_for_stripe_0123456789";
const SLACK_SECRET = "shpss_0123456789abcdef0123456789abcdef";

let h: PluginApp;
beforeEach(async () => {
  h = await startPluginApp({
    hooks: {
      mappings: [
        { id: "stripe", match: { path: "stripe" }, messageTemplate: "Stripe {{ payload.type }}", verify: { scheme: "stripe", secret: STRIPE_SECRET } },
        { id: "slack", match: { path: "slack" }, messageTemplate: "Slack {{ payload.event.type }}", verify: { scheme: "slack", secret: SLACK_SECRET } },
        {
          id: "keyed",
          match: { path: "keyed" },
          messageTemplate: "Stripe {{ payload.type }}",
          idempotencyKey: "{{ payload.data.object.id }}",
          verify: { scheme: "stripe", secret: STRIPE_SECRET },
        },
      ],
    },
  });
});
afterEach(() => h.close());

/** One delivery as the sender signs it, `secondsLater` after the first (a retry gets a new timestamp and signature). */
async function send(path: "stripe" | "slack" | "keyed", event: object, secondsLater = 0) {
  const body = JSON.stringify(event);
  const headers = await signHeaders(
    path === "slack" ? "slack" : "stripe",
    path === "slack" ? SLACK_SECRET : STRIPE_SECRET,
    body,
    Math.floor(Date.now() / 1000) + secondsLater,
  );
  return request(h.app).post(`/hooks/${path}`).set("Content-Type", "application/json").set(headers).send(body);
}

const stripeEvent = (pending: number, id = "evt_1NG8Du2eZvKYlo2CUI79vXWy") => ({
  id,
  object: "event",
  type: "invoice.paid",
  pending_webhooks: pending,
  data: { object: { id: "in_1" } },
});

describe("a verified Stripe or Slack mapping without idempotencyKey", () => {
  test("Stripe's retry of one event (new timestamp, pending_webhooks dropped from 2 to 1) replays the first run", async () => {
    const first = await send("stripe", stripeEvent(2));
    expect(first.status).toBe(202);
    const retry = await send("stripe", stripeEvent(1), 60);
    expect([retry.status, retry.headers["idempotent-replayed"], retry.body.runId]).toEqual([202, "true", first.body.runId]);
  });

  test("another Stripe event id is another run", async () => {
    const first = await send("stripe", stripeEvent(1));
    const other = await send("stripe", stripeEvent(1, "evt_other"));
    expect([other.status, other.headers["idempotent-replayed"]]).toEqual([202, undefined]);
    expect(other.body.runId).not.toBe(first.body.runId);
  });

  test("Slack's retry of one Events API event (same event_id, new timestamp) replays the first run", async () => {
    const event = { type: "event_callback", event_id: "Ev08MFMKH6", event: { type: "app_mention", text: "hi" } };
    const first = await send("slack", event);
    expect(first.status).toBe(202);
    const retry = await send("slack", event, 30);
    expect([retry.status, retry.headers["idempotent-replayed"], retry.body.runId]).toEqual([202, "true", first.body.runId]);
  });

  test("a Slack body without event_id (a slash command) keys nothing: two posts are two runs", async () => {
    const event = { type: "command", command: "/deploy", event: { type: "x" } };
    const first = await send("slack", event);
    const second = await send("slack", event);
    expect([first.status, second.status, second.headers["idempotent-replayed"]]).toEqual([202, 202, undefined]);
    expect(second.body.runId).not.toBe(first.body.runId);
  });

  test("a mapping's own idempotencyKey comes before the signed event id, and keeps comparing bodies", async () => {
    // Two event ids, one invoice: keyed by the template, the second is the first key with another body.
    expect((await send("keyed", stripeEvent(1, "evt_a"))).status).toBe(202);
    const second = await send("keyed", stripeEvent(1, "evt_b"));
    expect([second.status, second.body.code]).toEqual([422, "idempotency_key_reused"]);
  });
});
