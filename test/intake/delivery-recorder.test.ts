/**
 * What the recorder notes beyond the request (issue 24): an idempotent repeat is
 * marked `repeat`, a request whose answer waited for its run (`Prefer: wait`) is
 * marked `waited` with the answer's `Preference-Applied` kept in its
 * `responseHeaders`, and the read API's `search` finds a delivery by a body word.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { tempDir } from "../helpers/temp-dir";
import { until } from "../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };

interface Row {
  id: string;
  repeat?: boolean;
  waited?: boolean;
}

describe("delivery recorder: repeat, waited, answer headers; search", () => {
  let tmp: ReturnType<typeof tempDir>;
  let plugin: PluginApp;
  beforeEach(async () => {
    tmp = tempDir();
    plugin = await startPluginApp({ stateDir: tmp.dir, hooks: { rateLimit: { enabled: false } } });
  });
  afterEach(async () => {
    await plugin.close();
    tmp.remove();
  });
  const list = async (query = ""): Promise<Row[]> => (await request(plugin.app).get(`/hooks/deliveries${query}`).set(AUTH)).body.deliveries as Row[];

  it("the second request with the same idempotency key is recorded as a repeat, the first is not", async () => {
    const send = () =>
      request(plugin.app)
        .post("/hooks/agent")
        .set({ ...AUTH, "Idempotency-Key": "order-77" })
        .send({ message: "ship order 77" });
    expect((await send()).status).toBe(202);
    const again = await send();
    expect(again.status).toBe(202);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    await until(async () => (await list()).length === 2, "both rows");
    const [second, first] = await list();
    expect([second!.repeat, first!.repeat]).toEqual([true, undefined]);
  });

  it("a request that waited for its run (Prefer: wait) is marked waited, with Preference-Applied among its answer headers", async () => {
    const res = await request(plugin.app)
      .post("/hooks/agent")
      .set({ ...AUTH, Prefer: "wait=1" })
      .send({ message: "wait for me" });
    expect(res.headers["preference-applied"]).toBe("wait=1");
    const plain = await request(plugin.app).post("/hooks/agent").set(AUTH).send({ message: "do not wait" });
    expect(plain.status).toBe(202);
    await until(async () => (await list()).length === 2, "both rows");
    const [nowait, waited] = await list();
    expect([waited!.waited, nowait!.waited]).toEqual([true, undefined]);
    const detail = await request(plugin.app).get(`/hooks/deliveries/${waited!.id}`).set(AUTH);
    expect(detail.body.delivery.responseHeaders).toMatchObject({ "preference-applied": "wait=1" });
  });

  it("GET deliveries?search= finds a delivery by a word of its body; a search of 9 words is 400 naming the rule", async () => {
    await request(plugin.app).post("/hooks/wake").set(AUTH).send({ text: "the wombat deployed" });
    await request(plugin.app).post("/hooks/wake").set(AUTH).send({ text: "nothing to see" });
    await until(async () => (await list()).length === 2, "both rows");
    const found = await list("?search=wombat");
    expect(found).toHaveLength(1);
    const bad = await request(plugin.app)
      .get(`/hooks/deliveries?search=${encodeURIComponent("a b c d e f g h i")}`)
      .set(AUTH);
    expect([bad.status, bad.body.code, bad.body.error]).toEqual([
      400,
      "invalid_request",
      "Query parameter search must be 1 to 8 words of at most 200 characters in all.",
    ]);
  });
});
