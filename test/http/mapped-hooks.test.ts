/**
 * Mapped hooks through the real plugin (activated on the fake host, its route
 * mounted like a host does): issue 4 acceptance checks 3–7 at the HTTP level —
 * transforms, validation and safety wrapping of mapped actions, form bodies,
 * the mail preset's routing and a preset plugin's preset.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import type { FakeHostOptions } from "../helpers/fake-host";
import { alertmanagerContributions, alertmanagerFixture } from "../../examples/preset-plugin-alertmanager/test/contributions";

const FIXTURES = path.resolve(__dirname, "../fixtures");
const pushJson = fs.readFileSync(path.join(FIXTURES, "payloads/github-push.json"), "utf8");
const mailPush = JSON.parse(fs.readFileSync(path.join(FIXTURES, "payloads/mail-push-3.json"), "utf8")) as Record<string, unknown>;
const firing = alertmanagerFixture("firing.json");
const resolvedAlerts = alertmanagerFixture("resolved.json");

const MARKER = /<<<EXTERNAL_UNTRUSTED_CONTENT id="[0-9a-f]+">>>/;

/** A config dir with hooks/transforms holding the transform fixtures. */
function makeConfigDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "iw-mapped-")));
  const transforms = path.join(dir, "hooks", "transforms");
  fs.mkdirSync(transforms, { recursive: true });
  for (const f of fs.readdirSync(path.join(FIXTURES, "transforms"))) fs.copyFileSync(path.join(FIXTURES, "transforms", f), path.join(transforms, f));
  return dir;
}

const githubWake = { id: "gh-wake", match: { path: "github" }, action: "wake", allowUnsafeExternalContent: true, textTemplate: "{{ headers.x-github-event }} to {{ repository.full_name }} by {{ pusher.name }}: {{ head_commit.message | truncate: 26 }}" };

const MAPPINGS = [
  githubWake,
  { id: "user-session", match: { path: "chat" }, sessionKey: "{{payload.user}}", messageTemplate: "{{ text }}" },
  { id: "unsafe", match: { path: "trusted" }, allowUnsafeExternalContent: true, sessionKey: "hook:trusted", messageTemplate: "Internal: {{ text }}" },
  { id: "bad-model", match: { path: "fancy" }, model: "openai/gpt-5", messageTemplate: "{{ text }}" },
  { id: "gh-js", match: { path: "gh-js" }, transform: { module: "github-push.js" } },
  { id: "ts", match: { path: "sensors" }, transform: { module: "summarize.ts" } },
  { id: "quiet", match: { path: "quiet" }, transform: { module: "skip.js" } },
  { id: "boom", match: { path: "boom" }, transform: { module: "throws.cjs" } },
  { id: "slow", match: { path: "slow" }, transform: { module: "never.mjs" } },
  { id: "crm", match: { source: "crm" }, action: "wake", textTemplate: "CRM {{ event }}" },
  {
    id: "echo-tpl",
    match: { path: "echo-tpl" },
    action: "wake",
    allowUnsafeExternalContent: true,
    textTemplate:
      "H={{ headers }} Q={{ query }} [{{ headers.cookie }}][{{ headers.x-hub-signature-256 }}][{{ headers.api-key }}][{{ headers.x-shopify-hmac-sha256 }}][{{ query.token }}][{{ query.access_token }}]",
  },
  { id: "echo-js", match: { path: "echo-js" }, sessionKey: "hook:echo", allowUnsafeExternalContent: true, transform: { module: "context-echo.js" } },
];

async function start(opts: FakeHostOptions & { hooks?: Record<string, unknown> } = {}): Promise<PluginApp & { configDir: string }> {
  const configDir = makeConfigDir();
  const app = await startPluginApp({
    configDir,
    models: [{ ref: "openai/gpt-4o-mini", alias: "mini" }],
    extraConfig: { agents: { defaults: { models: { "openai/gpt-4o-mini": { alias: "mini" } } } } },
    ...opts,
    hooks: { mappings: MAPPINGS, transformTimeoutMs: 300, ...(opts.hooks ?? {}) },
  });
  const closeApp = app.close.bind(app);
  return Object.assign(app, {
    configDir,
    async close() {
      await closeApp();
      fs.rmSync(configDir, { recursive: true, force: true });
    },
  });
}

const auth = { Authorization: `Bearer ${TEST_TOKEN}` };

describe("mapped hooks over HTTP", () => {
  let h: PluginApp & { configDir: string };
  afterEach(async () => h?.close());

  describe("with configured mappings", () => {
    beforeEach(async () => {
      h = await start();
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
      expect(texts).toEqual(["push to ada-lab/garden-sensors by ada-moreau: Add weekly watering report…", "push to ada-lab/garden-sensors by ada-moreau: Add weekly watering report…"]);
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
      const res = await request(h.app).post("/hooks/sensors").set(auth).send({ readings: [{ sensor: "bed-3", value: 41, unit: "%" }] });
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
      expect(logged?.meta).toMatchObject({ mappingId: "slow", cause: "the transform did not finish within 300 ms" });
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
      h = await start({ hooks: { mappings: [{ id: "all", action: "wake", allowUnsafeExternalContent: true, textTemplate: "CAUGHT {{ text }}" }] } });
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

  describe("start-up checks through activation", () => {
    test("an unknown preset fails activation naming the available presets", async () => {
      const dir = makeConfigDir();
      try {
        await expect(startPluginApp({ configDir: dir, stateDir: dir, presets: alertmanagerContributions(), hooks: { presets: ["mail", "jira"] } })).rejects.toThrow(
          'hooks.presets[1] names an unknown preset "jira"; available presets: mail, github, alertmanager',
        );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    test("a transformsDir outside the config directory fails activation", async () => {
      const dir = makeConfigDir();
      const outside = makeConfigDir();
      try {
        const hooks = { mappings: [{ id: "t", match: { path: "t" }, transform: { module: "skip.js" } }], transformsDir: path.join(outside, "hooks", "transforms") };
        await expect(startPluginApp({ configDir: dir, stateDir: dir, hooks })).rejects.toThrow(`hooks.transformsDir must be inside the config directory (${dir})`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
        fs.rmSync(outside, { recursive: true, force: true });
      }
    });

    test("a shadowed mapping is reported as a warning at start", async () => {
      h = await start({ hooks: { mappings: [{ id: "all", messageTemplate: "x" }, { id: "never", match: { path: "github" }, messageTemplate: "y" }] } });
      const warning = h.host.logs.find((l) => l.level === "warn" && l.message.startsWith('mapping "never"'));
      expect(warning?.message).toBe(
        'mapping "never" (hooks.mappings[1]) can never match: it is shadowed by the catch-all mapping "all" (hooks.mappings[0]), which comes first and matches every request it would',
      );
    });
  });

  describe("the mail preset", () => {
    test("a push with 3 messages → one run naming all three senders and subjects; no last route → delivered on phone_chat", async () => {
      h = await start({ hooks: { presets: ["mail"] } });
      const res = await request(h.app).post("/hooks/mail").set(auth).send(mailPush);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ ok: true, sessionKey: "hook:mail:CAF3x9k2Zp1qW7v@mail.example.org", mapping: "mail" });
      await h.host.waitFor(() => h.host.deliveries.length === 1, 5000, "the delivery");
      expect(h.host.turns).toHaveLength(1);
      for (const who of ["Grace Okafor", "Parcel Service", "Garden Club", "Invoice 2025-0314", "Your parcel arrives today", "Seed swap on Saturday"]) {
        expect(h.host.turns[0].message).toContain(who);
      }
      expect(h.host.deliveries[0].channel).toBe("phone_chat");
    });

    test("hooks.mail.channel and to route the delivery", async () => {
      h = await start({
        hooks: { presets: ["mail"], mail: { imap: { host: "imap.example.org", user: "me", password: { env: "IMAP_PASSWORD" } }, channel: "bot_chat", to: "98765" } },
      });
      const res = await request(h.app).post("/hooks/mail").set(auth).send(mailPush);
      expect(res.status).toBe(202);
      await h.host.waitFor(() => h.host.deliveries.length === 1, 5000, "the delivery");
      expect(h.host.deliveries[0]).toMatchObject({ channel: "bot_chat", to: "98765" });
    });

    test("an invalid push → 400 invalid_payload naming the field", async () => {
      h = await start({ hooks: { presets: ["mail"] } });
      const res = await request(h.app).post("/hooks/mail").set(auth).send({ source: "mail", messages: [{ subject: "s", snippet: "x" }] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        ok: false,
        code: "invalid_payload",
        error: "The mail push is invalid.",
        details: [{ field: "messages[0].from", message: "messages[0].from must be a non-empty string" }],
      });
    });
  });

  describe("a preset plugin's preset (Alertmanager)", () => {
    test("a firing notification → 202 and one run listing the alerts; resolved → a system event for the next heartbeat", async () => {
      h = await start({ presets: alertmanagerContributions(), hooks: { presets: ["alertmanager"] } });
      const fire = await request(h.app).post("/hooks/alertmanager").set(auth).set("User-Agent", "Alertmanager/0.28.1").send(firing);
      expect(fire.status).toBe(202);
      expect(fire.body).toMatchObject({ ok: true, mapping: "alertmanager", sessionKey: expect.stringMatching(/^hook:alertmanager:[0-9a-f]{16}$/) });
      await h.host.waitFor(() => h.host.turns.length === 1, 5000, "the run");
      expect(h.host.turns[0].message).toContain("Disk /srv/media almost full");
      expect(h.host.turns[0].message).toContain("Disk /srv/backup almost full");

      const resolved = await request(h.app).post("/hooks/alertmanager").set(auth).send(resolvedAlerts);
      expect(resolved.status).toBe(200);
      expect(resolved.body).toEqual({ ok: true, mode: "next-heartbeat", mapping: "alertmanager" });
      const event = h.host.systemEvents.find((e) => e.text.includes("Alertmanager: 1 alert of DiskAlmostFull resolved."));
      expect(event?.sessionKey).toBe("main");
    });
  });
});
