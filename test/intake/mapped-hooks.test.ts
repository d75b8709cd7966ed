/**
 * Mapped hooks through the real plugin (activated on the fake host, its route
 * mounted like a host does), SPEC §6 at the HTTP level — transforms, validation
 * and safety wrapping of mapped actions, form bodies, credential filtering,
 * source routing, and the direct endpoints next to a catch-all mapping.
 * Presets are in mapped-hooks-presets.test.ts, start-up checks in
 * mapped-hooks-startup.test.ts.
 */
import request from "supertest";
import { TEST_TOKEN } from "../helpers/plugin-app";
import { auth, MARKER, pushJson, startMappedApp, type MappedApp } from "./mapped-app";

describe("mapped hooks over HTTP", () => {
  let h: MappedApp;
  afterEach(async () => h?.close());

  describe("with configured mappings", () => {
    beforeEach(async () => {
      h = await startMappedApp();
    });

    test("a mapped agent action with a disallowed model → 400 model_not_allowed, nothing dispatched", async () => {
      const res = await request(h.app).post("/hooks/fancy").set(auth).send({ text: "hi" });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("model_not_allowed");
      expect(h.host.turns).toEqual([]);
    });

    test('sessionKey "{{payload.user}}" with user "main" runs in hook:main, and the message reaches the runner wrapped', async () => {
      const res = await request(h.app).post("/hooks/chat").set(auth).send({ user: "main", text: "What changed today?" });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ ok: true, runId: expect.any(String), sessionKey: "hook:main", mapping: "user-session" });
      await h.host.waitFor(() => h.host.turns.length === 1, 5000, "the run");
      expect(h.host.turns[0].sessionKey).toBe("hook:main");
      expect(h.host.turns[0].message).toMatch(MARKER);
      expect(h.host.turns[0].message).toContain("What changed today?");
      expect(h.host.turns[0].message).not.toBe("What changed today?");
    });

    test("with allowUnsafeExternalContent: true the message reaches the runner unwrapped", async () => {
      const res = await request(h.app).post("/hooks/trusted").set(auth).send({ text: "rotate the logs" });
      expect(res.status).toBe(202);
      await h.host.waitFor(() => h.host.turns.length === 1, 5000, "the run");
      expect(h.host.turns[0].message).toBe("Internal: rotate the logs");
    });

    test("a form-encoded GitHub body (payload=<json>) is matched and rendered like the JSON one", async () => {
      const json = await request(h.app).post("/hooks/github").set(auth).set("X-GitHub-Event", "push").set("Content-Type", "application/json").send(pushJson);
      const form = await request(h.app)
        .post("/hooks/github")
        .set(auth)
        .set("X-GitHub-Event", "push")
        .set("Content-Type", "application/x-www-form-urlencoded")
        .send(`payload=${encodeURIComponent(pushJson)}`);
      expect(json.status).toBe(200);
      expect(form.status).toBe(200);
      expect(json.body).toEqual({ ok: true, mode: "now", mapping: "gh-wake" });
      expect(form.body).toEqual({ ok: true, mode: "now", mapping: "gh-wake" });
      const texts = h.host.systemEvents.map((e) => e.text);
      expect(texts).toEqual([
        "push to ada-lab/garden-sensors by ada-moreau: Add weekly watering report…",
        "push to ada-lab/garden-sensors by ada-moreau: Add weekly watering report…",
      ]);
    });

    test("text/xml on a mapped hook → 415", async () => {
      const res = await request(h.app).post("/hooks/github").set(auth).set("Content-Type", "text/xml").send("<push/>");
      expect(res.status).toBe(415);
      expect(res.body.code).toBe("unsupported_media_type");
      expect(h.host.systemEvents).toEqual([]);
    });

    test("a .js transform changes the action", async () => {
      const res = await request(h.app).post("/hooks/gh-js").set(auth).set("X-GitHub-Event", "push").set("Content-Type", "application/json").send(pushJson);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ sessionKey: "hook:github:ada-lab/garden-sensors", mapping: "gh-js" });
      await h.host.waitFor(() => h.host.turns.length === 1, 5000, "the run");
      expect(h.host.turns[0].message).toContain("2 commit(s) pushed to ada-lab/garden-sensors on main:");
    });

    test("a .ts transform changes the action (here: into a wake for the next heartbeat)", async () => {
      const res = await request(h.app)
        .post("/hooks/sensors")
        .set(auth)
        .send({ readings: [{ sensor: "bed-3", value: 41, unit: "%" }] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true, mode: "next-heartbeat", mapping: "ts" });
      expect(h.host.systemEvents).toHaveLength(1);
      expect(h.host.systemEvents[0].text).toContain("Readings from sensors (ts): bed-3=41%");
      expect(h.host.heartbeats).toEqual([]);
    });

    test("a transform returning null → 204 with an empty body and nothing dispatched", async () => {
      const res = await request(h.app).post("/hooks/quiet").set(auth).send({ any: 1 });
      expect(res.status).toBe(204);
      expect(res.text).toBe("");
      expect(h.host.systemEvents).toEqual([]);
      expect(h.host.turns).toEqual([]);
    });

    test("a throwing transform → 500 transform_failed with no detail in the body; the cause is logged", async () => {
      const res = await request(h.app).post("/hooks/boom").set(auth).send({ any: 1 });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ ok: false, code: "transform_failed", error: "The hook's transform failed." });
      expect(res.text).not.toContain("upstream schema");
      const logged = h.host.logs.find((l) => l.level === "error" && l.message === "transform failed");
      expect(logged?.meta).toMatchObject({ mappingId: "boom", cause: "Error: boom: the upstream schema changed" });
    });

    test("a transform that never resolves → 500 transform_failed after the timeout", async () => {
      const res = await request(h.app).post("/hooks/slow").set(auth).send({});
      expect(res.status).toBe(500);
      expect(res.body.code).toBe("transform_failed");
      expect(res.body).toEqual({ ok: false, code: "transform_failed", error: "The hook's transform failed." });
      expect(h.host.turns).toEqual([]);
      expect(h.host.systemEvents).toEqual([]);
      expect(h.host.heartbeats).toEqual([]);
      const logged = h.host.logs.find((l) => l.level === "error" && l.message === "transform failed");
      expect(logged?.meta).toMatchObject({
        mappingId: "slow",
        cause: "the transform did not finish within 300 ms (hooks.transformTimeoutMs, shared by every transform call of the request)",
      });
    });

    test("credential headers and query parameters never reach templates or transforms; ordinary ones do", async () => {
      const secrets = { cookie: "sid=COOKIE1", sig: "sha256=HUBSIG1", apiKey: "APIKEY1", hmac: "SHOPHMAC1", query: "QTOKEN1", access: "ACCESS1" };
      const send = (name: string) =>
        request(h.app)
          .post(`/hooks/${name}?token=${secrets.query}&access_token=${secrets.access}&env=prod`)
          .set(auth)
          .set("Cookie", secrets.cookie)
          .set("X-Hub-Signature-256", secrets.sig)
          .set("Api-Key", secrets.apiKey)
          .set("X-Shopify-Hmac-Sha256", secrets.hmac)
          .set("X-GitHub-Event", "push")
          .set("X-Request-Id", "req-42")
          .set("User-Agent", "sender/1.0")
          .send({ any: 1 });
      const tpl = await send("echo-tpl");
      const js = await send("echo-js");
      expect(tpl.status).toBe(200);
      expect(js.status).toBe(202);
      await h.host.waitFor(() => h.host.turns.length === 1, 5000, "the run");
      const rendered = h.host.systemEvents.find((e) => e.meta?.mappingId === "echo-tpl")?.text ?? "";
      const seen = h.host.turns[0].message;
      for (const text of [rendered, seen]) {
        for (const secret of [...Object.values(secrets), TEST_TOKEN]) expect(text).not.toContain(secret);
        expect(text).toContain('"x-github-event":"push"');
        expect(text).toContain('"x-request-id":"req-42"');
        expect(text).toContain('"user-agent":"sender/1.0"');
        expect(text).toContain('"content-type":"application/json"');
        expect(text).toContain('{"env":"prod"}');
      }
      expect(rendered).toMatch(/\[\]\[\]\[\]\[\]\[\]\[\]$/);
      expect(JSON.parse(seen).url).toBe("/hooks/echo-js?env=prod");
    });

    test("source routing on a generic endpoint, and no match → 404 not_found", async () => {
      const crm = await request(h.app).post("/hooks/ingest").set(auth).send({ source: "crm", event: "deal won" });
      expect(crm.status).toBe(200);
      expect(crm.body).toEqual({ ok: true, mode: "now", mapping: "crm" });
      const none = await request(h.app).post("/hooks/ingest").set(auth).send({ source: "other" });
      expect(none.status).toBe(404);
      expect(none.body.code).toBe("not_found");
    });
  });

  describe("with a catch-all mapping", () => {
    test("POST /hooks/wake and /hooks/agent stay direct endpoints: no mapping field, the text wrapped", async () => {
      h = await startMappedApp({ hooks: { mappings: [{ id: "all", action: "wake", allowUnsafeExternalContent: true, textTemplate: "CAUGHT {{ text }}" }] } });
      const wake = await request(h.app).post("/hooks/wake").set(auth).send({ text: "disk almost full", mode: "now" });
      expect(wake.status).toBe(200);
      expect(wake.body).toEqual({ ok: true, mode: "now" });
      expect(h.host.systemEvents).toHaveLength(1);
      const text = h.host.systemEvents[0].text;
      expect(text).toMatch(MARKER);
      expect(text).toContain("disk almost full");
      expect(text).not.toContain("CAUGHT");
      expect(h.host.systemEvents[0].meta?.mappingId).toBeUndefined();

      const agent = await request(h.app).post("/hooks/agent").set(auth).send({ message: "summarise the logs" });
      expect(agent.status).toBe(202);
      expect(agent.body).toEqual({ ok: true, runId: expect.any(String), sessionKey: expect.any(String) });
      await h.host.waitFor(() => h.host.turns.length === 1, 5000, "the run");
      expect(h.host.turns[0].message).toMatch(MARKER);
      expect(h.host.turns[0].message).not.toContain("CAUGHT");

      const other = await request(h.app).post("/hooks/anything").set(auth).send({ text: "x" });
      expect(other.status).toBe(200);
      expect(other.body).toEqual({ ok: true, mode: "now", mapping: "all" });
    });
  });
});
