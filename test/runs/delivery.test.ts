/**
 * The plugin's delivery decision against the shared heartbeat-ack table
 * (test/host-contract/heartbeat-ack-cases.ts): the plan, and what a run actually
 * delivers through the executor.
 */
import { planDelivery } from "../../src/runs/delivery";
import { ACK_REPLIES, NOT_ACK_REPLIES } from "../host-contract/heartbeat-ack-cases";
import { agentAction, createHarness, directSource, runRecord, stopAllHarnesses } from "./harness";

afterEach(stopAllHarnesses);

const lastRoute = { channel: "bot_chat", to: "chat-42" };
const plan = (reply: string) =>
  planDelivery(
    agentAction({ channel: "last" }),
    directSource(),
    reply,
    () => lastRoute,
    () => ["bot_chat", "phone_chat"],
  );

async function runWithReply(reply: string) {
  const h = createHarness({ host: { lastRoute, runTurn: async () => ({ status: "ok", reply }) } });
  const outcome = await h.executor.execute(runRecord({ status: "running", action: agentAction({ channel: "last" }) }));
  return { outcome, deliveries: h.host.deliveries };
}

describe("planDelivery and the shared heartbeat-ack table", () => {
  it.each(ACK_REPLIES)("skips an acknowledgement: %s", (_label, reply) => {
    expect(plan(reply)).toEqual({ kind: "skip", reason: "heartbeat_ack" });
  });

  it.each(NOT_ACK_REPLIES)("delivers a reply that says more: %s", (_label, reply) => {
    expect(plan(reply)).toEqual({ kind: "deliver", channel: "bot_chat", to: "chat-42" });
  });
});

describe("a run's reply through the executor", () => {
  it.each(ACK_REPLIES)("an acknowledgement is not delivered: %s", async (_label, reply) => {
    const r = await runWithReply(reply);
    expect(r.outcome).toMatchObject({ status: "succeeded", delivered: false });
    expect(r.deliveries).toEqual([]);
  });

  it.each(NOT_ACK_REPLIES)("a reply that says more is delivered: %s", async (_label, reply) => {
    const r = await runWithReply(reply);
    expect(r.outcome).toMatchObject({ status: "succeeded", delivered: true });
    expect(r.deliveries).toEqual([{ channel: "bot_chat", to: "chat-42", text: reply.trim() }]);
  });
});
