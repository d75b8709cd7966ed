/**
 * Regression (review of issue 20's request path): a request whose target is in absolute
 * form (`POST http://host/hooks/alerts HTTP/1.1`, as a forward proxy or some HTTP clients
 * send it) is routed by Express like `/hooks/alerts` and answered 200, and the ledger keeps
 * its URL as received. Replay took the path below `hooks.path` from that URL by prefix, found
 * none, and answered 404 "No hook at /hooks itself" — SPEC §11: a replay gets exactly what the
 * live request would get today.
 *
 * The whole plugin (router → ledger in SQLite → replay) on the fake host, served on a real port.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { until } from "../../helpers/until";
import { postRequestTarget, serve, type Served } from "../support/raw-http";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };

/** A POST whose request line carries the absolute URL of `path`. */
const postAbsoluteForm = (port: number, path: string, body: string) =>
  postRequestTarget(port, `http://127.0.0.1:${port}${path}`, { ...AUTH, "Content-Type": "application/json" }, body);

describe("a replayed proxy-form (absolute URL) request answered 404", () => {
  let h: PluginApp;
  let served: Served;
  beforeAll(async () => {
    h = await startPluginApp({
      hooks: {
        rateLimit: { enabled: false },
        mappings: [{ id: "alerts", match: { path: "alerts" }, action: "wake", textTemplate: "alert: {{ payload.subject }}" }],
      },
    });
    served = await serve(h.app);
  });
  afterAll(async () => {
    await served.close();
    await h.close();
  });

  it("the replay of a live 200 sent as POST http://host/hooks/alerts answers the same 200", async () => {
    const live = await postAbsoluteForm(served.port, "/hooks/alerts?source=proxy", JSON.stringify({ subject: "disk almost full" }));
    expect(live.status).toBe(200);
    const listed = async () => (await request(h.app).get("/hooks/deliveries?hook=alerts").set(AUTH)).body.deliveries as Array<{ id: string; url: string }>;
    await until(async () => (await listed()).length === 1, "the live delivery in the ledger");
    const [stored] = await listed();
    expect(stored!.url).toBe(`http://127.0.0.1:${served.port}/hooks/alerts?source=proxy`);
    const replayed = await request(h.app).post(`/hooks/deliveries/${stored!.id}/replay`).set(AUTH);
    expect([replayed.status, replayed.body]).toEqual([live.status, JSON.parse(live.body)]);
    expect(h.host.systemEvents.map((e) => e.text).filter((t) => t.includes("disk almost full"))).toHaveLength(2);
  });
});
