/**
 * The demo's echo agent (issue 23): one `/agent` hook with `deliver: true` gave two chat
 * messages — the run's reply, then the heartbeat that read the run's summary echoed it
 * again to the same chat — and every echo began with the wrapper's ~400-character
 * notice. On the real gateway with the echo runner: exactly one `delivery` line, the
 * heartbeat after the run answers HEARTBEAT_OK, and the echo reply shows the notice
 * folded to one line while the text the runner was given (a model's prompt) keeps it whole.
 */
import { FOLDED_UNTRUSTED_NOTICE, UNTRUSTED_NOTICE } from "../../src/host-contract/untrusted-notice";
import { gatewayPerTest, hooksConfig, postJson } from "./gateway-setup";

describe("gateway e2e: the demo's echo agent", () => {
  const gateway = gatewayPerTest();

  it("one /agent hook with deliver: true → exactly one delivery line in the journal (was two)", async () => {
    const gw = await gateway.start({ config: hooksConfig({ agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: "30m" } } } }) });
    const res = await postJson(`${gw.baseUrl}/hooks/agent`, {
      message: "Summarise the failed build",
      name: "CI",
      deliver: true,
      channel: "bot_chat",
      to: "me",
    });
    expect(res.status).toBe(202);
    const delivery = await gw.waitForJournal((e) => e.type === "delivery");
    expect(delivery).toMatchObject({ channel: "bot_chat", to: "me" });
    expect(String(delivery.text).startsWith(`echo: ${FOLDED_UNTRUSTED_NOTICE}\n`)).toBe(true);
    expect(String(delivery.text)).toContain("Summarise the failed build");
    expect(String(delivery.text)).not.toContain(UNTRUSTED_NOTICE);

    // The run's summary reaches main and (wakeMode now) a heartbeat drains it: the echo agent acknowledges it.
    await gw.waitForJournal((e) => e.type === "system_event" && e.sessionKey === "main" && String(e.text).includes("Hook CI: "));
    const mainTurn = await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === "main");
    expect(mainTurn).toMatchObject({ status: "ok", reply: "HEARTBEAT_OK" });
    await gw.waitForJournal((e) => e.type === "system_events_consumed" && e.sessionKey === "main");

    // A graceful stop waits for the heartbeat and the runs: the journal is final.
    expect(await gw.stop()).toBe(0);
    expect(gw.journal().filter((e) => e.type === "delivery")).toHaveLength(1);
    // The hook's own turn got the wrapped message whole (what a model would read).
    const hookTurn = gw.journal().find((e) => e.type === "agent_turn" && String(e.sessionKey).startsWith("hook:"))!;
    expect(String(hookTurn.reply)).toContain(FOLDED_UNTRUSTED_NOTICE);
  });

  it("a wake still reaches the chat: a heartbeat with a wake event is echoed (notice folded)", async () => {
    const gw = await gateway.start({
      config: hooksConfig({
        agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: "30m" } } },
        session: { main: { lastRoute: { channel: "bot_chat", to: "me" } } },
      }),
    });
    expect((await postJson(`${gw.baseUrl}/hooks/wake`, { text: "disk almost full" })).status).toBe(200);
    const delivery = await gw.waitForJournal((e) => e.type === "delivery");
    expect(String(delivery.text)).toContain("disk almost full");
    expect(String(delivery.text)).toContain(FOLDED_UNTRUSTED_NOTICE);
    expect(String(delivery.text)).not.toContain(UNTRUSTED_NOTICE);
  });
});
