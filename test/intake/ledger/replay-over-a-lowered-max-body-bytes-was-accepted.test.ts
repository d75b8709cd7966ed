/**
 * Regression: replay handed the stored body straight to accept(), and today's
 * `hooks.maxBodyBytes` is enforced only while a live body is read (src/intake/io/read-body.ts).
 * After the limit was lowered, the replay of a delivery larger than the new limit was
 * accepted (200, a system event), while the same request sent live today gets 413
 * `payload_too_large`. docs/ledger.md promises a replay "exactly what that request would get
 * today" (SPEC §4.1 "One accept path", §11): 413 with the same code and sentence, nothing
 * dispatched, the replay recorded with that answer. The dry run of the stored delivery (the
 * dashboard's "dry-run this delivery") says the hook would refuse it the same way.
 *
 * The whole plugin (router → ledger in SQLite → replay) on the fake host, started twice on
 * one state dir.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { tempDir } from "../../helpers/temp-dir";
import { until } from "../../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const hooks = (maxBodyBytes: number) => ({
  maxBodyBytes,
  rateLimit: { enabled: false },
  mappings: [{ id: "alerts", match: { path: "alerts" }, action: "wake", textTemplate: "alert {{ payload.subject }}" }],
});
/** 600 bytes of JSON: within 1024, over 512. */
const BIG = JSON.stringify({ subject: "disk", detail: "x".repeat(600 - 30) });
const SMALL = JSON.stringify({ subject: "cpu" });

describe("a replay after hooks.maxBodyBytes was lowered", () => {
  let tmp: ReturnType<typeof tempDir>;
  let plugin: PluginApp | undefined;
  beforeEach(() => void (tmp = tempDir()));
  afterEach(async () => {
    await plugin?.close();
    tmp.remove();
  });

  /** Records BIG and SMALL under a 1024-byte limit, then starts again with 512: their stored ids. */
  async function recordThenLower(): Promise<{ big: string; small: string }> {
    expect(Buffer.byteLength(BIG)).toBe(600);
    plugin = await startPluginApp({ stateDir: tmp.dir, hooks: hooks(1024) });
    for (const body of [BIG, SMALL]) await request(plugin.app).post("/hooks/alerts").set(AUTH).type("application/json").send(body).expect(200);
    await until(async () => (await request(plugin!.app).get("/hooks/deliveries").set(AUTH)).body.deliveries.length === 2, "both deliveries in the ledger");
    await plugin.close();

    plugin = await startPluginApp({ stateDir: tmp.dir, hooks: hooks(512) });
    const [small, big] = (await request(plugin.app).get("/hooks/deliveries").set(AUTH).expect(200)).body.deliveries as Array<{ id: string }>;
    return { big: big!.id, small: small!.id };
  }

  it("of a delivery over the new limit answers the live request's 413 payload_too_large, nothing dispatched", async () => {
    const { big } = await recordThenLower();
    const live = await request(plugin!.app).post("/hooks/alerts").set(AUTH).type("application/json").send(BIG);
    expect(live.status).toBe(413);
    expect(live.body).toEqual({ ok: false, code: "payload_too_large", error: "The request body is larger than hooks.maxBodyBytes allows (512 bytes)." });

    const replayed = await request(plugin!.app).post(`/hooks/deliveries/${big}/replay`).set(AUTH);
    expect([replayed.status, replayed.body]).toEqual([live.status, live.body]);
    expect(plugin!.host.systemEvents).toEqual([]);
    const newest = async () => ((await request(plugin!.app).get("/hooks/deliveries?limit=1").set(AUTH)).body.deliveries as Array<Record<string, unknown>>)[0];
    await until(async () => (await newest())?.id === replayed.headers["x-delivery-id"], "the replay in the ledger");
    expect(await newest()).toMatchObject({ status: 413, code: "payload_too_large", replayOf: big, runIds: [] });

    const dry = await plugin!.host.inspectors[0]!.dryRun({ hook: "alerts", body: BIG, headers: { "content-type": "application/json" } });
    expect(dry).toEqual({ ok: false, lines: ["The request body is larger than hooks.maxBodyBytes allows (512 bytes). (payload_too_large)"] });
  });

  it("of a delivery within the new limit still runs", async () => {
    const { small } = await recordThenLower();
    const replayed = await request(plugin!.app).post(`/hooks/deliveries/${small}/replay`).set(AUTH);
    expect([replayed.status, replayed.body]).toEqual([200, { ok: true, mode: "now", mapping: "alerts" }]);
    expect(plugin!.host.systemEvents.map((e) => e.text)).toEqual([expect.stringContaining("alert cpu")]);
  });
});
