/**
 * Idempotency through the whole plugin (router → guard → dispatcher → durable
 * run queue) on the fake host: replay with each key header, 422 on a different
 * body, scope per hook path, 50 concurrent duplicates, and replay after a restart.
 */
import http from "node:http";
import { openSqlite } from "../../src/store/sqlite-driver";
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { tempDir } from "../helpers/temp-dir";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const HOOKS = {
  rateLimit: { enabled: false },
  mappings: [{ id: "crm", match: { path: "crm" }, action: "agent", name: "CRM", messageTemplate: "Deal {{ payload.deal }}" }],
};

describe("idempotency through the plugin", () => {
  let tmp: ReturnType<typeof tempDir>;
  let plugin: PluginApp;
  const start = async () => (plugin = await startPluginApp({ stateDir: tmp.dir, hooks: HOOKS }));
  const runCount = (): number => {
    // Counts the durable rows: a replay must not add one.
    const db = openSqlite(`${tmp.dir}/inbound-webhooks.sqlite`, { readonly: true });
    try {
      return (db.prepare("SELECT COUNT(*) AS n FROM runs").get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    request(plugin.app)
      .post(path)
      .set(AUTH)
      .set(headers)
      .send(body as object);

  beforeEach(async () => {
    tmp = tempDir();
    await start();
  });
  afterEach(async () => {
    await plugin.close();
    tmp.remove();
  });

  it.each(["Idempotency-Key", "webhook-id", "svix-id", "X-GitHub-Delivery"])(
    "a replayed %s gets the same status and body plus Idempotent-Replayed: true, and no second run",
    async (header) => {
      const first = await post("/hooks/agent", { [header]: "evt-1" }, { message: "deploy finished" });
      expect(first.status).toBe(202);
      expect(first.headers["idempotent-replayed"]).toBeUndefined();
      await plugin.host.waitFor(() => plugin.host.turns.length === 1, 5000, "the run");
      const again = await post("/hooks/agent", { [header]: "evt-1" }, { message: "deploy finished" });
      expect(again.status).toBe(202);
      expect(again.body).toEqual(first.body);
      expect(again.headers["idempotent-replayed"]).toBe("true");
      expect(again.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(again.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
      expect(runCount()).toBe(1);
      expect(plugin.host.turns).toHaveLength(1);
    },
  );

  it("a replayed /wake enqueues the system event once", async () => {
    const first = await post("/hooks/wake", { "Idempotency-Key": "w-1" }, { text: "disk almost full", mode: "next-heartbeat" });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ok: true, mode: "next-heartbeat" });
    const again = await post("/hooks/wake", { "Idempotency-Key": "w-1" }, { text: "disk almost full", mode: "next-heartbeat" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ok: true, mode: "next-heartbeat" });
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(plugin.host.systemEvents.filter((e) => e.text.includes("disk almost full"))).toHaveLength(1);
  });

  it("a replayed mapped hook gets its 202 with the mapping id and runs once", async () => {
    const first = await post("/hooks/crm", { "Idempotency-Key": "deal-9" }, { deal: "9" });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ ok: true, runId: expect.any(String), sessionKey: expect.stringMatching(/^hook:/), mapping: "crm" });
    const again = await post("/hooks/crm", { "Idempotency-Key": "deal-9" }, { deal: "9" });
    expect(again.body).toEqual(first.body);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(runCount()).toBe(1);
  });

  it("the same key with a different body → 422 idempotency_key_reused, nothing runs", async () => {
    await post("/hooks/agent", { "Idempotency-Key": "k-1" }, { message: "one" }).expect(202);
    const other = await post("/hooks/agent", { "Idempotency-Key": "k-1" }, { message: "two" });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      ok: false,
      code: "idempotency_key_reused",
      error: "The idempotency key was already used on /hooks/agent with a different request body; send a new key for a different request.",
    });
    expect(other.headers["x-request-id"]).toBeDefined();
    expect(runCount()).toBe(1);
  });

  it("keys are scoped per hook path", async () => {
    await post("/hooks/agent", { "Idempotency-Key": "shared" }, { message: "a" }).expect(202);
    const mapped = await post("/hooks/crm", { "Idempotency-Key": "shared" }, { deal: "1" });
    expect(mapped.status).toBe(202);
    expect(mapped.headers["idempotent-replayed"]).toBeUndefined();
    expect(runCount()).toBe(2);
  });

  it("an error response is not stored: a corrected retry with the same key runs", async () => {
    const bad = await post("/hooks/agent", { "Idempotency-Key": "fix-me" }, { message: "" });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_payload");
    const fixed = await post("/hooks/agent", { "Idempotency-Key": "fix-me" }, { message: "now valid" });
    expect(fixed.status).toBe(202);
    expect(fixed.headers["idempotent-replayed"]).toBeUndefined();
    expect(runCount()).toBe(1);
  });

  it("50 concurrent requests with one key → exactly one run; the others replay its 202", async () => {
    const server = http.createServer(plugin.app);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const body = { message: "burst", sessionKey: "hook:burst" };
      const all = await Promise.all(
        Array.from({ length: 50 }, () => request(server).post("/hooks/agent").set(AUTH).set("Idempotency-Key", "burst-1").send(body)),
      );
      expect(all.map((r) => r.status)).toEqual(Array(50).fill(202));
      expect(new Set(all.map((r) => r.body.runId)).size).toBe(1);
      expect(all.filter((r) => r.headers["idempotent-replayed"] === "true")).toHaveLength(49);
      await plugin.host.waitFor(() => plugin.host.turns.length >= 1, 5000, "the run");
      expect(runCount()).toBe(1);
      expect(plugin.host.turns.filter((t) => t.sessionKey === "hook:burst")).toHaveLength(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("replays after a restart: same runId, Idempotent-Replayed, no new run; a different body is still 422", async () => {
    const first = await post("/hooks/agent", { "X-GitHub-Delivery": "gh-77" }, { message: "push to main" });
    expect(first.status).toBe(202);
    await plugin.host.waitFor(() => plugin.host.turns.length === 1, 5000, "the run");
    await plugin.close();

    await start();
    const again = await post("/hooks/agent", { "X-GitHub-Delivery": "gh-77" }, { message: "push to main" });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    const reused = await post("/hooks/agent", { "X-GitHub-Delivery": "gh-77" }, { message: "push to dev" });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe("idempotency_key_reused");
    expect(plugin.host.turns).toHaveLength(0); // the new process ran nothing
    expect(runCount()).toBe(1);
    const status = await request(plugin.app).get(`/hooks/runs/${first.body.runId}`).set(AUTH);
    expect(status.status).toBe(200);
    expect(status.body.run.status).toBe("succeeded");
  });
});
