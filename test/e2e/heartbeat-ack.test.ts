/**
 * One heartbeat-ack rule on the real gateway: with the `openai` runner scripted
 * (fake Chat Completions server) to answer `<p><b>HEARTBEAT_OK</b>&nbsp;</p>`, neither
 * an `/agent` run nor the heartbeat its summary triggers delivers anything. (The
 * gateway's former copy of the rule delivered this reply as a chat message.) A run
 * whose reply says more is delivered on the same route, so the route itself works.
 */
import { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiRequest } from "../helpers/fake-openai";
import { gatewayPerTest, hooksConfig, postJson } from "./gateway-setup";

const HTML_ACK = "<p><b>HEARTBEAT_OK</b>&nbsp;</p>";
const lastUser = (r: FakeOpenAiRequest) => String(r.body.messages[r.body.messages.length - 1]?.content ?? "");

describe("gateway e2e: a heartbeat acknowledgement in HTML is delivered by nobody", () => {
  let ai: FakeOpenAi;
  const gateway = gatewayPerTest();

  beforeEach(async () => {
    // Every turn — hook runs and heartbeats — acknowledges, except the control run.
    ai = await startFakeOpenAi({ reply: (r) => (lastUser(r).includes("[control]") ? "The disk is 95% full." : HTML_ACK) });
  });
  afterEach(async () => {
    await ai.close();
  });

  it("an /agent run and the heartbeat after it both reply the HTML ack: no delivery line in the journal", async () => {
    const gw = await gateway.start({
      config: hooksConfig({
        agents: { runner: { kind: "openai", baseUrl: ai.baseUrl, model: "openai/gpt-main" }, defaults: { heartbeat: { every: "off" } } },
        session: { main: { lastRoute: { channel: "bot_chat", to: "room-1" } } },
      }),
    });

    // Control: a reply that says more goes out on the main session's last route.
    const control = await postJson(`${gw.baseUrl}/hooks/agent`, {
      message: "[control] check the disk",
      name: "Disk",
      sessionKey: "hook:control",
      wakeMode: "next-heartbeat",
    });
    expect(control.status).toBe(202);
    await gw.waitForJournal((e) => e.type === "delivery" && e.text === "The disk is 95% full.");

    const res = await postJson(`${gw.baseUrl}/hooks/agent`, { message: "anything to report?", name: "Check", sessionKey: "hook:ack" });
    expect(res.status).toBe(202);
    const turn = await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === "hook:ack");
    expect(turn).toMatchObject({ status: "ok", reply: HTML_ACK });
    // The run's summary reaches main and (wakeMode now) a heartbeat drains it into a main turn.
    await gw.waitForJournal((e) => e.type === "system_event" && e.sessionKey === "main" && String(e.text).includes("Hook Check: "));
    const mainTurn = await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === "main");
    expect(mainTurn).toMatchObject({ status: "ok", reply: HTML_ACK });
    await gw.waitForJournal((e) => e.type === "system_events_consumed" && e.sessionKey === "main");

    // A graceful stop waits for the heartbeat and the runs to finish: the journal is final.
    expect(await gw.stop()).toBe(0);
    expect(gw.journal().filter((e) => e.type === "delivery")).toEqual([
      expect.objectContaining({ channel: "bot_chat", to: "room-1", text: "The disk is 95% full." }),
    ]);
    expect(ai.requests.some((r) => lastUser(r).startsWith("Heartbeat ("))).toBe(true);
  });
});
