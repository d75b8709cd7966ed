/**
 * Regression: replay took the hook from the stored URL by a bare string prefix of today's
 * `hooks.path`. A delivery recorded at `/hooks2/alerts`, replayed after `hooks.path` became
 * `/hooks`, was routed as the hook `2/alerts`: a mapping without `match.path` ran it (200,
 * a system event). The live request `/hooks2/alerts` is not below `/hooks` today (SPEC §4.1:
 * `/hooksX` is not ours), so its replay is 404 `not_found` saying so, nothing dispatched.
 *
 * The whole plugin (router → ledger in SQLite → replay) on the fake host, started twice on
 * one state dir.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { tempDir } from "../../helpers/temp-dir";
import { until } from "../../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const hooks = (path: string) => ({
  path,
  rateLimit: { enabled: false },
  mappings: [{ id: "any", action: "wake", textTemplate: "alert {{ payload.subject }}" }],
});

describe("a replay after hooks.path changed", () => {
  let tmp: ReturnType<typeof tempDir>;
  let plugin: PluginApp | undefined;
  beforeEach(() => void (tmp = tempDir()));
  afterEach(async () => {
    await plugin?.close();
    tmp.remove();
  });

  it("of a delivery recorded at /hooks2/alerts is 404 not_found under hooks.path /hooks, not the hook 2/alerts", async () => {
    plugin = await startPluginApp({ stateDir: tmp.dir, hooks: hooks("/hooks2") });
    await request(plugin.app).post("/hooks2/alerts").set(AUTH).send({ subject: "disk" }).expect(200);
    await until(async () => (await request(plugin!.app).get("/hooks2/deliveries").set(AUTH)).body.deliveries.length === 1, "the delivery in the ledger");
    await plugin.close();

    plugin = await startPluginApp({ stateDir: tmp.dir, hooks: hooks("/hooks") });
    const [stored] = (await request(plugin.app).get("/hooks/deliveries").set(AUTH).expect(200)).body.deliveries as Array<{ id: string; url: string }>;
    expect(stored!.url).toBe("/hooks2/alerts");
    const res = await request(plugin.app).post(`/hooks/deliveries/${stored!.id}/replay`).set(AUTH);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      ok: false,
      code: "not_found",
      error: "This delivery was recorded at a path that is not below hooks.path (/hooks) today, so no hook of this gateway answers it.",
    });
    expect(plugin.host.systemEvents).toEqual([]);
  });
});
