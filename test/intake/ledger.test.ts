/**
 * The delivery ledger through the whole plugin (router → recorder → SQLite) on the
 * fake host: what is recorded, what is redacted (in the API answer and in the file
 * bytes), the read API and its query errors, replay, and that a ledger failure
 * never changes a sender's answer.
 */
import fs from "node:fs";
import path from "node:path";
import { openSqlite } from "../../src/store/sqlite-driver";
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { tempDir } from "../helpers/temp-dir";
import { until } from "../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const SIGNATURE = "sha256=5eb63bbbe01eeed093cb22bb8f5acdc3aaaa1111bbbb2222cccc3333dddd4444";
const COOKIE = "session=cookie-value-9f8e7d6c5b4a";
const HOOKS = {
  rateLimit: { enabled: false },
  mappings: [{ id: "crm", match: { path: "crm" }, action: "agent", name: "CRM", messageTemplate: "Deal {{ payload.deal }}" }],
};

interface Listed {
  id: string;
  hook?: string;
  status: number;
  code?: string;
  runIds: string[];
  replayOf?: string;
  mappingId?: string;
}

describe("delivery ledger through the plugin", () => {
  let tmp: ReturnType<typeof tempDir>;
  let plugin: PluginApp;
  const start = async (hooks: Record<string, unknown> = HOOKS) => (plugin = await startPluginApp({ stateDir: tmp.dir, hooks }));
  const list = async (query = ""): Promise<Listed[]> => {
    const res = await request(plugin.app).get(`/hooks/deliveries${query}`).set(AUTH);
    expect(res.status).toBe(200);
    return res.body.deliveries as Listed[];
  };
  const waitForRows = (n: number) => until(async () => (await list()).length >= n, `${n} ledger rows`);

  beforeEach(async () => {
    tmp = tempDir();
    await start();
  });
  afterEach(async () => {
    await plugin.close();
    tmp.remove();
  });

  async function sendThree() {
    const agent = await request(plugin.app)
      .post("/hooks/crm?source=crm")
      .set({ ...AUTH, "X-Hub-Signature-256": SIGNATURE, Cookie: COOKIE, "X-Crm-Event": "deal.won" })
      .send({ deal: "42" });
    expect(agent.status).toBe(202);
    const wake = await request(plugin.app).post("/hooks/wake").set(AUTH).send({ text: "disk almost full" });
    expect(wake.status).toBe(200);
    const missing = await request(plugin.app).post("/hooks/nothing-here").set(AUTH).send({ a: 1 });
    expect(missing.status).toBe(404);
    await waitForRows(3);
    return { runId: agent.body.runId as string };
  }

  it("after a mapped agent, a wake and a 404 the list shows them newest first with hook, status and run id", async () => {
    const { runId } = await sendThree();
    const rows = await list();
    expect(rows.map((r) => [r.hook, r.status, r.code])).toEqual([
      ["nothing-here", 404, "not_found"],
      ["wake", 200, undefined],
      ["crm", 202, undefined],
    ]);
    expect(rows[2]).toMatchObject({ mappingId: "crm", runIds: [runId] });
    expect(rows[0]!.runIds).toEqual([]);
  });

  it("the detail shows the raw body while the token, the signature and the cookie appear nowhere, not even in the SQLite file", async () => {
    await sendThree();
    const crm = (await list("?hook=crm"))[0]!;
    const res = await request(plugin.app).get(`/hooks/deliveries/${crm.id}`).set(AUTH);
    expect(res.status).toBe(200);
    const d = res.body.delivery;
    expect(d.body).toBe('{"deal":"42"}');
    expect(d.headers).toMatchObject({ authorization: "[REDACTED]", "x-hub-signature-256": "[REDACTED]", cookie: "[REDACTED]", "x-crm-event": "deal.won" });
    expect(d.response).toMatchObject({ ok: true, mapping: "crm" });
    const serialized = JSON.stringify(res.body);
    for (const secret of [TEST_TOKEN, SIGNATURE, COOKIE, "cookie-value"]) expect(serialized).not.toContain(secret);
    await plugin.close();
    const bytes = Buffer.concat(
      fs
        .readdirSync(tmp.dir)
        .filter((f) => f.startsWith("inbound-webhooks.sqlite"))
        .map((f) => fs.readFileSync(path.join(tmp.dir, f))),
    );
    expect(bytes.includes('{"deal":"42"}')).toBe(true); // the body is there: the search below would find the secrets too
    for (const secret of [TEST_TOKEN, SIGNATURE, "cookie-value-9f8e7d6c5b4a"]) expect(bytes.includes(secret)).toBe(false);
  });

  it("filters by hook and by status class, and pages with before", async () => {
    await sendThree();
    expect((await list("?status=4xx")).map((r) => r.hook)).toEqual(["nothing-here"]);
    expect((await list("?status=200")).map((r) => r.hook)).toEqual(["wake"]);
    expect((await list("?hook=wake")).map((r) => r.status)).toEqual([200]);
    const [newest] = await list("?limit=1");
    expect((await list(`?before=${newest!.id}`)).map((r) => r.hook)).toEqual(["wake", "crm"]);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=501", "limit"],
    ["limit=abc", "limit"],
    ["status=4x", "status"],
    ["status=600", "status"],
    ["since=yesterday", "since"],
    ["before=no%20such", "before"],
    ["before=00000000-0000-4000-8000-000000000000", "before"],
    ["colour=blue", "colour"],
  ])("GET deliveries?%s → 400 invalid_request naming %s", async (query, name) => {
    const res = await request(plugin.app).get(`/hooks/deliveries?${query}`).set(AUTH);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.error).toContain(name);
  });

  it("reads are not recorded, and need the hook token like every route", async () => {
    await sendThree();
    await request(plugin.app).get("/hooks/runs").set(AUTH).expect(200);
    const anonymous = await request(plugin.app).get("/hooks/deliveries");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe("unauthorized");
    await request(plugin.app).post("/hooks/wake").set(AUTH).send({ text: "a fourth" }).expect(200);
    await waitForRows(4);
    expect((await list()).map((r) => r.hook)).toEqual(["wake", "nothing-here", "wake", "crm"]);
  });

  it("a throttled client's reads are not recorded either (429 before routing), its hook requests are", async () => {
    await plugin.close();
    await start({ ...HOOKS, authThrottle: { maxFailures: 1, windowSeconds: 60 } });
    const wrong = { Authorization: "Bearer wrong-token-wrong-token" };
    await request(plugin.app).post("/hooks/wake").set(wrong).send({ text: "x" }).expect(401);
    await request(plugin.app).post("/hooks/wake").set(wrong).send({ text: "x" }).expect(429);
    await request(plugin.app).get("/hooks/deliveries").set(wrong).expect(429);
    await waitForRows(2);
    expect((await list()).map((r) => [r.hook, r.status])).toEqual([
      ["wake", 429],
      ["wake", 401],
    ]);
  });

  it("GET deliveries/<unknown> → 404 delivery_not_found; POST deliveries → 405 naming GET", async () => {
    const res = await request(plugin.app).get("/hooks/deliveries/00000000-0000-4000-8000-000000000000").set(AUTH);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("delivery_not_found");
    const post = await request(plugin.app).post("/hooks/deliveries").set(AUTH).send({});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET");
    expect(post.body.error).toBe("Only GET is allowed on /hooks/deliveries.");
  });

  it("GET runs lists runs newest first and filters by status; a bad status is 400 naming it", async () => {
    const a = await request(plugin.app).post("/hooks/crm").set(AUTH).send({ deal: "1" });
    const b = await request(plugin.app).post("/hooks/crm").set(AUTH).send({ deal: "2" });
    await plugin.host.waitFor(() => plugin.host.turns.length === 2, 5000, "two runs");
    await until(async () => (await request(plugin.app).get("/hooks/runs?status=succeeded").set(AUTH)).body.runs.length === 2, "both runs succeeded");
    const res = await request(plugin.app).get("/hooks/runs?limit=10").set(AUTH);
    expect(res.body.runs.map((r: { id: string }) => r.id)).toEqual([b.body.runId, a.body.runId]);
    expect((await request(plugin.app).get("/hooks/runs?status=queued").set(AUTH)).body.runs).toEqual([]);
    const bad = await request(plugin.app).get("/hooks/runs?status=done").set(AUTH);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_request", error: expect.stringContaining("status must be one of queued") });
  });

  it("replay of the mapped delivery starts a new run and is recorded with replayOf", async () => {
    await sendThree();
    const crm = (await list("?hook=crm"))[0]!;
    const res = await request(plugin.app).post(`/hooks/deliveries/${crm.id}/replay`).set(AUTH);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ ok: true, mapping: "crm", runId: expect.any(String) });
    expect(res.body.runId).not.toBe(crm.runIds[0]);
    await plugin.host.waitFor(() => plugin.host.turns.some((t) => t.message.includes("Deal 42")) && plugin.host.turns.length === 2, 5000, "the replayed run");
    await waitForRows(4);
    const newest = (await list())[0]!;
    expect(newest).toMatchObject({ id: res.headers["x-delivery-id"], hook: "crm", status: 202, replayOf: crm.id, runIds: [res.body.runId] });
  });

  it("a delivery refused at authentication is not replayable (409), and an unknown one is 404", async () => {
    await request(plugin.app).post("/hooks/crm").set({ Authorization: "Bearer wrong-token-wrong-token" }).send({ deal: "x" }).expect(401);
    await waitForRows(1);
    const [refused] = await list();
    const res = await request(plugin.app).post(`/hooks/deliveries/${refused!.id}/replay`).set(AUTH);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("delivery_not_replayable");
    const unknown = await request(plugin.app).post("/hooks/deliveries/00000000-0000-4000-8000-000000000000/replay").set(AUTH);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("delivery_not_found");
  });

  it("with storeBodies false nothing of the request is kept and a replay is 409 delivery_body_not_stored", async () => {
    await plugin.close();
    await start({ ...HOOKS, ledger: { storeBodies: false } });
    await request(plugin.app)
      .post("/hooks/crm")
      .set({ ...AUTH, Cookie: COOKIE })
      .send({ deal: "7" })
      .expect(202);
    await waitForRows(1);
    const [row] = await list();
    const detail = await request(plugin.app).get(`/hooks/deliveries/${row!.id}`).set(AUTH);
    expect(detail.body.delivery.headers).toEqual({});
    expect(detail.body.delivery.body).toBeUndefined();
    const res = await request(plugin.app).post(`/hooks/deliveries/${row!.id}/replay`).set(AUTH);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("delivery_body_not_stored");
  });

  it("a ledger write failure (its table dropped under it) leaves the sender's answer unchanged", async () => {
    const other = openSqlite(path.join(tmp.dir, "inbound-webhooks.sqlite"));
    other.exec("DROP TABLE deliveries");
    other.close();
    const res = await request(plugin.app).post("/hooks/crm").set(AUTH).send({ deal: "5" });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ ok: true, mapping: "crm" });
    await plugin.host.waitFor(() => plugin.host.logs.some((l) => l.message.startsWith("delivery ledger write failed")), 5000, "the ledger failure log");
    const logged = plugin.host.logs.find((l) => l.message.startsWith("delivery ledger write failed"))!;
    expect(JSON.stringify(logged)).not.toContain("deal");
    expect(JSON.stringify(logged)).not.toContain(TEST_TOKEN);
  });

  it("the ledger survives a restart, and a table dropped while stopped is created again at start", async () => {
    await sendThree();
    await plugin.close();
    await start();
    expect((await list()).map((r) => r.hook)).toEqual(["nothing-here", "wake", "crm"]);
    await plugin.close();
    const other = openSqlite(path.join(tmp.dir, "inbound-webhooks.sqlite"));
    other.exec("DROP TABLE deliveries");
    other.close();
    await start();
    expect(await list()).toEqual([]);
    expect(plugin.host.logs.some((l) => l.message.includes("delivery ledger table was missing"))).toBe(true);
  });

  it.each(["deliveries", "deliveries/x/replay", "runs", "runs/abc"])("a mapping on the reserved path %s fails activation naming its key", async (reserved) => {
    await plugin.close();
    await expect(
      start({
        mappings: [
          { id: "ok", match: { path: "fine" }, action: "wake", textTemplate: "t" },
          { id: "x", match: { path: reserved }, action: "wake", textTemplate: "t" },
        ],
      }),
    ).rejects.toThrow(`hooks.mappings[1].match.path "${reserved}" is reserved`);
    plugin = { close: async () => undefined } as unknown as PluginApp;
  });
});
