/**
 * The `openai` runner (SPEC §2.2): the real gateway with the `openai` runner pointed at a
 * fake Chat Completions server; `/hooks/agent` → agent_turn (model + thinking),
 * delivery on the resolved channel, `Hook <name>: …` on main, then a heartbeat;
 * the same sessionKey continues the conversation.
 */
import { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiRequest } from "../helpers/fake-openai";
import { gatewayPerTest, hooksConfig, postJson } from "./gateway-setup";

const lastUser = (r: FakeOpenAiRequest) => String(r.body.messages[r.body.messages.length - 1]?.content ?? "");
/** Deterministic replies: heartbeats are acknowledged, hook turns answered by tag. */
function replyFor(r: FakeOpenAiRequest): string {
  const text = lastUser(r);
  if (text.startsWith("Heartbeat (")) return "HEARTBEAT_OK";
  const tag = /\[(Q\d+)\]/.exec(text)?.[1] ?? "?";
  return `answer to ${tag}`;
}

describe("gateway e2e: openai runner", () => {
  let ai: FakeOpenAi;
  const gateway = gatewayPerTest();

  beforeEach(async () => {
    ai = await startFakeOpenAi({ reply: (r) => replyFor(r) });
  });
  afterEach(async () => {
    await ai.close();
  });

  const start = () =>
    gateway.start({
      config: hooksConfig({
        agents: {
          runner: { kind: "openai", baseUrl: ai.baseUrl, model: "openai/gpt-main", apiKeyEnv: "E2E_OPENAI_KEY" },
          defaults: { heartbeat: { every: "off" }, models: { "openai/gpt-main": {}, "openai/gpt-test": { alias: "tester" } } },
        },
        session: { main: { lastRoute: { channel: "bot_chat", to: "room-1" } } },
      }),
      env: { E2E_OPENAI_KEY: "sk-e2e" },
    });

  it("journals agent_turn with model and thinking, a delivery on the resolved channel, the summary on main, then a heartbeat", async () => {
    const gw = await start();
    const res = await postJson(`${gw.baseUrl}/hooks/agent`, {
      message: "[Q1] summarise the build",
      name: "CI",
      model: "tester",
      thinking: "low",
      channel: "community_chat",
      to: "chan-9",
    });
    expect(res.status).toBe(202);
    const sessionKey = res.body.sessionKey as string;
    expect(sessionKey).toMatch(/^hook:/);

    const turn = await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === sessionKey);
    expect(turn).toMatchObject({ model: "openai/gpt-test", thinking: "low", status: "ok", reply: "answer to Q1" });

    const delivery = await gw.waitForJournal((e) => e.type === "delivery" && e.text === "answer to Q1");
    expect(delivery).toMatchObject({ channel: "community_chat", to: "chan-9" });

    const summary = await gw.waitForJournal((e) => e.type === "system_event" && e.sessionKey === "main" && String(e.text).includes("Hook CI: "));
    expect(String(summary.text)).toContain("answer to Q1");

    await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === "main");
    const journal = gw.journal();
    const iSummary = journal.findIndex((e) => e.type === "system_event" && String(e.text).includes("Hook CI: "));
    const iHeartbeat = journal.findIndex((e) => e.type === "heartbeat");
    expect(iHeartbeat).toBeGreaterThan(iSummary);
    expect(journal[iHeartbeat]!.pending).toBeGreaterThanOrEqual(1);

    // The runner's request: provider prefix removed, reasoning_effort from thinking, the API key sent.
    const hookReq = ai.requests.find((r) => lastUser(r).includes("[Q1]"))!;
    expect(hookReq.body.model).toBe("gpt-test");
    expect(hookReq.body.reasoning_effort).toBe("low");
    expect(hookReq.headers.authorization).toBe("Bearer sk-e2e");
    // The heartbeat turn ran on the default model, and its HEARTBEAT_OK was not delivered.
    const hbReq = ai.requests.find((r) => lastUser(r).startsWith("Heartbeat ("))!;
    expect(hbReq.body.model).toBe("gpt-main");
    expect(hbReq.body).not.toHaveProperty("reasoning_effort");
    await gw.waitForJournal((e) => e.type === "system_events_consumed" && e.sessionKey === "main");
    expect(
      gw
        .journal()
        .filter((e) => e.type === "delivery")
        .map((e) => e.text),
    ).toEqual(["answer to Q1"]);
  });

  it("continues the conversation for the same sessionKey (history in the second request)", async () => {
    const gw = await start();
    const first = await postJson(`${gw.baseUrl}/hooks/agent`, { message: "[Q1] first question", sessionKey: "hook:conv-1", deliver: false });
    expect(first.status).toBe(202);
    await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === "hook:conv-1");
    const second = await postJson(`${gw.baseUrl}/hooks/agent`, { message: "[Q2] second question", sessionKey: "hook:conv-1", deliver: false });
    expect(second.status).toBe(202);
    await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === "hook:conv-1" && e.reply === "answer to Q2");

    const req2 = ai.requests.find((r) => lastUser(r).includes("[Q2]"))!;
    const msgs = req2.body.messages;
    expect(msgs).toHaveLength(3);
    expect(msgs[0]!.role).toBe("user");
    expect(msgs[0]!.content).toContain("[Q1] first question");
    expect(msgs[1]).toEqual({ role: "assistant", content: "answer to Q1" });
    expect(msgs[2]!.role).toBe("user");
    expect(msgs[2]!.content).toContain("[Q2] second question");
  });

  it("reports an HTTP error of the model server as status error with the reason", async () => {
    ai.setReply((r) => (lastUser(r).includes("[Q9]") ? { status: 500, body: { error: { message: "model overloaded" } } } : replyFor(r)));
    const gw = await start();
    const res = await postJson(`${gw.baseUrl}/hooks/agent`, { message: "[Q9] fail please", sessionKey: "hook:err", deliver: false });
    expect(res.status).toBe(202);
    const turn = await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === "hook:err");
    expect(turn).toMatchObject({ status: "error", error: "HTTP 500: model overloaded" });
  });
});
