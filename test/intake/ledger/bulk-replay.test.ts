/**
 * Bulk replay by filter over the hook API (`POST /hooks/deliveries/replay`), through the whole
 * plugin on the fake host: 20 refused deliveries of one hook (400: the mapping's message renders
 * blank) → the preview counts 20 (and the 401s beside them as not replayable) → the confirmation
 * makes exactly 20 new deliveries, each `replayOf` one of them; the same confirmation again makes
 * none (issue 33: "makes 20, once"); a match set that changed since the preview, a filter that is
 * not the preview's and a forged confirm are refused with their codes, nothing replayed.
 */
import path from "node:path";
import request from "supertest";
import { openSqlite } from "../../../src/store/sqlite-driver";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { tempDir } from "../../helpers/temp-dir";
import { until } from "../../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const HOOKS = {
  rateLimit: { enabled: false },
  mappings: [
    { id: "ci", match: { path: "ci" }, action: "agent", name: "CI", messageTemplate: "{{ payload.text }}" },
    { id: "crm", match: { path: "crm" }, action: "agent", name: "CRM", messageTemplate: "Deal {{ payload.deal }}" },
  ],
};

interface Listed {
  id: string;
  hook?: string;
  status: number;
  replayOf?: string;
}

describe("POST /hooks/deliveries/replay (bulk replay by filter)", () => {
  let tmp: ReturnType<typeof tempDir>;
  let plugin: PluginApp;
  const list = async (query: string): Promise<Listed[]> => {
    const res = await request(plugin.app).get(`/hooks/deliveries${query}`).set(AUTH);
    expect(res.status).toBe(200);
    return res.body.deliveries as Listed[];
  };
  const bulk = (query: string) => request(plugin.app).post(`/hooks/deliveries/replay${query}`).set(AUTH);

  beforeEach(async () => {
    tmp = tempDir();
    plugin = await startPluginApp({ stateDir: tmp.dir, hooks: HOOKS });
  });
  afterEach(async () => {
    await plugin.close();
    tmp.remove();
  });

  /** 20 × 400 of hook ci (no text), 3 × 401 on ci (a wrong token), 2 × 202 of crm; returns the ids of the 400s. */
  async function outage(): Promise<string[]> {
    for (let i = 0; i < 20; i++) expect((await request(plugin.app).post("/hooks/ci").set(AUTH).send({ n: i })).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await request(plugin.app).post("/hooks/ci").set({ Authorization: "Bearer wrong" }).send({ n: i })).status).toBe(401);
    for (let i = 0; i < 2; i++)
      expect(
        (
          await request(plugin.app)
            .post("/hooks/crm")
            .set(AUTH)
            .send({ deal: String(i) })
        ).status,
      ).toBe(202);
    await until(async () => (await list("?limit=500")).length === 25, "the 25 deliveries in the ledger");
    return (await list("?hook=ci&status=400&limit=500")).map((d) => d.id);
  }

  it("20 refused deliveries: the preview counts 20, the confirmation makes 20 new deliveries, the same confirmation again none", async () => {
    const refused = await outage();
    expect(refused).toHaveLength(20);

    const preview = await bulk("?hook=ci&status=4xx");
    expect(preview.status).toBe(200);
    expect(preview.body.preview).toMatchObject({ filter: { hook: "ci", status: "4xx" }, count: 20, notReplayable: 3, max: 1000 });
    // Oldest first: the order they are replayed in.
    expect(preview.body.preview.ids).toEqual([...refused].reverse());
    expect((await list("?limit=500")).length).toBe(25);

    const confirm = preview.body.preview.confirm as string;
    const done = await bulk(`?hook=ci&status=4xx&confirm=${encodeURIComponent(confirm)}`);
    expect(done.status).toBe(200);
    expect(done.body.replay).toMatchObject({ count: 20, failed: 20, repeated: false });
    const replayed = done.body.replay.replayed as Array<{ replayOf: string; deliveryId: string; status: number; code: string }>;
    expect(replayed.map((r) => r.replayOf)).toEqual([...refused].reverse());
    expect(replayed.every((r) => r.status === 400 && r.code === "invalid_payload")).toBe(true);

    const replays = async () => (await list("?hook=ci&limit=500")).filter((d) => d.replayOf !== undefined);
    await until(async () => (await replays()).length === 20, "the 20 replays in the ledger");
    expect(new Set((await replays()).map((d) => d.replayOf))).toEqual(new Set(refused));
    expect(new Set((await replays()).map((d) => d.id))).toEqual(new Set(replayed.map((r) => r.deliveryId)));

    // A double submit, a retry after a lost answer: the same answer, no second set.
    const again = await bulk(`?hook=ci&status=4xx&confirm=${encodeURIComponent(confirm)}`);
    expect(again.status).toBe(200);
    expect(again.body.replay).toMatchObject({ count: 20, repeated: true });
    expect(again.body.replay.replayed).toEqual(replayed);
    await new Promise((r) => setTimeout(r, 100));
    expect((await replays()).length).toBe(20);
    expect((await list("?limit=500")).length).toBe(45);

    // Replays are not matched again: a new preview of the same filter counts the 20 originals, not 40.
    expect((await bulk("?hook=ci&status=4xx")).body.preview).toMatchObject({ count: 20, notReplayable: 23 });
  });

  it("two confirmations at once make one set", async () => {
    await outage();
    const confirm = encodeURIComponent((await bulk("?hook=ci&status=400")).body.preview.confirm as string);
    const [a, b] = await Promise.all([bulk(`?hook=ci&status=400&confirm=${confirm}`), bulk(`?hook=ci&status=400&confirm=${confirm}`)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.body.replay.repeated, b.body.replay.repeated].sort()).toEqual([false, true]);
    await new Promise((r) => setTimeout(r, 100));
    expect((await list("?hook=ci&limit=500")).filter((d) => d.replayOf !== undefined)).toHaveLength(20);
  });

  it("a delivery of the preview pruned before the confirmation: 409 bulk_replay_changed, nothing replayed", async () => {
    const refused = await outage();
    const confirm = encodeURIComponent((await bulk("?hook=ci&status=4xx")).body.preview.confirm as string);
    const db = openSqlite(path.join(tmp.dir, "inbound-webhooks.sqlite"));
    db.prepare("DELETE FROM deliveries WHERE id = ?").run(refused[5]!);
    db.close();
    const res = await bulk(`?hook=ci&status=4xx&confirm=${confirm}`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      ok: false,
      code: "bulk_replay_changed",
      error: "The deliveries this filter matches are not the ones the preview counted (20 then, 19 now); nothing was replayed: preview again.",
    });
    expect((await list("?limit=500")).filter((d) => d.replayOf !== undefined)).toEqual([]);
  });

  it("a confirmation with another filter than its preview's: 409 bulk_replay_changed; a forged confirm: 400 naming it", async () => {
    await outage();
    const confirm = encodeURIComponent((await bulk("?hook=ci&status=4xx")).body.preview.confirm as string);
    const other = await bulk(`?hook=ci&status=400&confirm=${confirm}`);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("bulk_replay_changed");
    const forged = await bulk("?hook=ci&status=4xx&confirm=yes");
    expect(forged.status).toBe(400);
    expect(forged.body).toMatchObject({
      code: "invalid_request",
      error: "Query parameter confirm must be the confirm value of a preview (the same request without confirm).",
    });
    expect((await list("?limit=500")).filter((d) => d.replayOf !== undefined)).toEqual([]);
  });

  it("refuses a bulk replay without a filter, with limit or before, a bad filter and GET, naming the parameter", async () => {
    const none = await bulk("");
    expect(none.status).toBe(400);
    expect(none.body.error).toBe("A bulk replay needs a filter: at least one of hook, status, since or search.");
    const limit = await bulk("?hook=ci&limit=5");
    expect(limit.status).toBe(400);
    expect(limit.body.error).toBe("Unknown query parameter limit; this route accepts hook, status, since, search, confirm.");
    const status = await bulk("?status=5x");
    expect(status.status).toBe(400);
    expect(status.body.error).toMatch(/^Query parameter status /);
    const get = await request(plugin.app).get("/hooks/deliveries/replay?hook=ci").set(AUTH);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe("POST");
    expect(get.body.error).toBe("Only POST is allowed on /hooks/deliveries/replay.");
    const noToken = await request(plugin.app).post("/hooks/deliveries/replay?hook=ci");
    expect(noToken.status).toBe(401);
  });
});
