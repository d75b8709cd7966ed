/**
 * Bounded heartbeat prompts and the bounded main-session queue, on the real
 * gateway process (SPEC §7). Regressions: 150 wakes of 2 KB became one 382 KB
 * heartbeat prompt that the model rejected, and every later heartbeat failed
 * the same way; 100k wakes with the heartbeat off grew the heap without bound.
 */
import { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiRequest } from "../helpers/fake-openai";
import { apiStatus, gatewayPerTest, hooksConfig, postJson } from "./gateway-setup";

jest.setTimeout(120_000);

/** What the fake model accepts in one request (all messages together). */
const MODEL_LIMIT_CHARS = 60_000;
const totalChars = (r: FakeOpenAiRequest) => r.body.messages.reduce((n, m) => n + m.content.length, 0);

describe("gateway e2e: heartbeat batches and the main session bound", () => {
  const gateway = gatewayPerTest();
  let ai: FakeOpenAi;
  beforeEach(async () => {
    ai = await startFakeOpenAi({
      reply: (r) =>
        totalChars(r) > MODEL_LIMIT_CHARS
          ? { status: 400, body: { error: { message: `context_length_exceeded: ${totalChars(r)} characters` } } }
          : "HEARTBEAT_OK",
    });
  });
  afterEach(async () => {
    await ai.close();
  });

  it("150 wakes of 2 KB drain completely through a model that rejects prompts over 60000 characters", async () => {
    const gw = await gateway.start({
      config: hooksConfig({
        hooks: { rateLimit: { enabled: false } },
        agents: { runner: { kind: "openai", baseUrl: ai.baseUrl, model: "openai/gpt-test" }, defaults: { heartbeat: { every: "off" } } },
      }),
    });
    for (let i = 0; i < 150; i++) {
      const res = await postJson(`${gw.baseUrl}/hooks/wake`, { text: `wake ${i} ${"z".repeat(2048)}`, mode: "next-heartbeat" });
      expect(res.status).toBe(200);
    }
    expect((await postJson(`${gw.baseUrl}/hooks/wake`, { text: "drain now", mode: "now" })).status).toBe(200);

    const consumed = () =>
      gw
        .journal()
        .filter((e) => e.type === "system_events_consumed")
        .reduce((n, e) => n + Number(e.count), 0);
    const deadline = Date.now() + 60_000;
    while (consumed() < 151) {
      if (Date.now() > deadline)
        throw new Error(`only ${consumed()} of 151 events consumed: ${JSON.stringify(gw.journal().filter((e) => e.type !== "system_event"))}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const rejected = ai.requests.filter((r) => totalChars(r) > MODEL_LIMIT_CHARS);
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    for (const r of ai.requests) expect(totalChars(r)).toBeLessThanOrEqual(100_000);
    expect(gw.journal().filter((e) => e.type === "heartbeat_batch_failed").length).toBe(rejected.length);
    const report = await gw.waitForJournal((e) => e.type === "system_event" && e.source === "heartbeat");
    expect(String(report.text)).toMatch(/^Heartbeat report: the agent runner failed \d+ heartbeat turns? \(last: error, HTTP 400: context_length_exceeded/);
    const status = await apiStatus(gw.baseUrl);
    expect(status.mainSession).toMatchObject({ pending: 1 });
  });

  it("past session.main.maxPending, /wake answers 503 overloaded with Retry-After and nothing is queued", async () => {
    const gw = await gateway.start({ config: hooksConfig({ session: { main: { maxPending: 5 } } }) });
    for (let i = 0; i < 5; i++) expect((await postJson(`${gw.baseUrl}/hooks/wake`, { text: `fill ${i}`, mode: "next-heartbeat" })).status).toBe(200);
    const res = await fetch(`${gw.baseUrl}/hooks/wake`, {
      method: "POST",
      headers: { authorization: `Bearer ${gw.token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "one too many", mode: "next-heartbeat" }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("30");
    expect(await res.json()).toEqual({ ok: false, code: "overloaded", error: "The main session's event queue is full; retry later." });
    expect(
      gw
        .journal()
        .filter((e) => e.type === "system_event")
        .map((e) => String(e.text))
        .some((t) => t.includes("one too many")),
    ).toBe(false);
    expect((await apiStatus(gw.baseUrl)).mainSession).toMatchObject({ pending: 5 });
  });
});
