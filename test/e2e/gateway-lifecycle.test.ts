/**
 * The gateway's lifecycle (SPEC §2.2): pending system events survive a restart and one
 * heartbeat consumes them in one main-agent turn; SIGTERM/SIGINT on an idle
 * gateway exit 0 within 2 s (also when its stdout reader has gone), a second signal while stopping
 * exits 130 at once; periodic heartbeats run on their own.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startGateway, makeGatewayDir, type GatewayProcess } from "../helpers/gateway-process";
import { until } from "../helpers/until";
import { apiStatus, gatewayPerTest, hooksConfig, postJson } from "./gateway-setup";

/** Waits for the child's exit after a signal, failing past `ms`. */
async function stopWithin(gw: GatewayProcess, signal: NodeJS.Signals, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>(
    (_r, reject) => (timer = setTimeout(() => reject(new Error(`gateway did not exit within ${ms} ms after ${signal}`)), ms)),
  );
  try {
    return await Promise.race([gw.stop(signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe("gateway e2e: main session and heartbeat", () => {
  const gateway = gatewayPerTest();

  it("keeps pending events across a restart; the next heartbeat consumes them in one main-agent turn", async () => {
    const dir = makeGatewayDir();
    const config = hooksConfig();
    let gw = await gateway.start({ dir, config });
    const r1 = await postJson(`${gw.baseUrl}/hooks/wake`, { text: "event one", mode: "next-heartbeat" });
    expect(r1).toEqual({ status: 200, body: { ok: true, mode: "next-heartbeat" } });
    await gw.waitForJournal((e) => e.type === "system_event" && String(e.text).includes("event one"));
    expect(await gw.stop()).toBe(0);
    expect(gw.journal().filter((e) => e.type === "heartbeat")).toEqual([]);

    gw = await gateway.start({ dir, config });
    expect((await apiStatus(gw.baseUrl)).mainSession).toEqual({ pending: 1, lastRoute: null });
    const r2 = await postJson(`${gw.baseUrl}/hooks/wake`, { text: "event two" });
    expect(r2).toEqual({ status: 200, body: { ok: true, mode: "now" } });
    const consumed = await gw.waitForJournal((e) => e.type === "system_events_consumed" && e.sessionKey === "main");
    expect(consumed.count).toBe(2);

    const journal = gw.journal();
    const heartbeats = journal.filter((e) => e.type === "heartbeat");
    expect(heartbeats).toHaveLength(1);
    expect(heartbeats[0]!.pending).toBe(2);
    const mainTurns = journal.filter((e) => e.type === "agent_turn" && e.sessionKey === "main");
    expect(mainTurns).toHaveLength(1);
    expect(mainTurns[0]!.status).toBe("ok");
    expect(String(mainTurns[0]!.reply)).toContain("event one");
    expect(String(mainTurns[0]!.reply)).toContain("event two");
    expect((await apiStatus(gw.baseUrl)).mainSession).toEqual({ pending: 0, lastRoute: null });
  });

  it("delivers a non-ack heartbeat reply to the main session's last route", async () => {
    const gw = await gateway.start({ config: hooksConfig({ session: { main: { lastRoute: { channel: "phone_chat", to: "+15550100" } } } }) });
    await postJson(`${gw.baseUrl}/hooks/wake`, { text: "doorbell rang" });
    const delivery = await gw.waitForJournal((e) => e.type === "delivery");
    expect(delivery).toMatchObject({ channel: "phone_chat", to: "+15550100" });
    expect(String(delivery.text)).toContain("doorbell rang");
  });

  it("runs periodic heartbeats every agents.defaults.heartbeat.every", async () => {
    const gw = await gateway.start({ config: hooksConfig({ agents: { defaults: { heartbeat: { every: "300ms" } } } }) });
    const hb = await gw.waitForJournal((e) => e.type === "heartbeat");
    expect(hb).toMatchObject({ reason: "interval", pending: 0 });
  });
});

describe("gateway e2e: signals", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("%s on an idle gateway stops services and exits 0 within 2 s", async (signal) => {
    const gw = await startGateway({ config: hooksConfig() });
    expect(await stopWithin(gw, signal, 2000)).toBe(0);
    const phases = gw
      .journal()
      .filter((e) => e.type === "gateway")
      .map((e) => e.phase);
    expect(phases).toEqual(["started", "stopping", "stopped"]);
    expect(gw.stdout()).toContain(`stopping (${signal})`);
  });

  it.each([
    ["SIGTERM", "SIGINT"],
    ["SIGINT", "SIGTERM"],
    ["SIGINT", "SIGINT"],
  ] as const)(
    "%s, then %s while a run holds the stop: exits at once with code 130 (was: a second signal other than the first killed it by the signal, no exit code)",
    async (first, second) => {
      // A model server that takes the request and never answers: the run stays running through the stop's grace period.
      const hanging = http.createServer(() => undefined);
      await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
      const asked = new Promise<void>((resolve) => hanging.once("request", () => resolve()));
      try {
        const baseUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v1`;
        const gw = await startGateway({
          config: hooksConfig({ agents: { runner: { kind: "openai", baseUrl, model: "openai/m" } }, hooks: { runs: { shutdownGraceSeconds: 30 } } }),
        });
        expect((await postJson(`${gw.baseUrl}/hooks/agent`, { message: "wait" })).status).toBe(202);
        await asked;
        gw.child.kill(first);
        await until(() => gw.stdout().includes(`stopping (${first})`), "the stopping line");
        expect(await stopWithin(gw, second, 2000)).toBe(130);
      } finally {
        hanging.closeAllConnections();
        await new Promise<void>((resolve) => hanging.close(() => resolve()));
      }
    },
  );

  it("a start whose stdout reader went away (gateway start | head -1) still stops cleanly: exit 0, no EPIPE stack (was: exit 1 with an unhandled 'error' event)", async () => {
    const gw = await startGateway({ config: hooksConfig() });
    gw.child.stdout!.destroy();
    expect(await stopWithin(gw, "SIGTERM", 2000)).toBe(0);
    expect(gw.stderr()).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(
      gw
        .journal()
        .filter((e) => e.type === "gateway")
        .map((e) => e.phase),
    ).toEqual(["started", "stopping", "stopped"]);
  });
});
