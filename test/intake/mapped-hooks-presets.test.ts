/**
 * Presets over HTTP through the real plugin (SPEC §6.4): the built-in mail
 * preset's routing and validation, and a preset plugin's preset (Alertmanager).
 */
import fs from "node:fs";
import path from "node:path";
import request from "supertest";
import { alertmanagerContributions, alertmanagerFixture } from "../../examples/preset-plugin-alertmanager/test/contributions";
import { auth, FIXTURES, startMappedApp, type MappedApp } from "./mapped-app";

const mailPush = JSON.parse(fs.readFileSync(path.join(FIXTURES, "payloads/mail-push-3.json"), "utf8")) as Record<string, unknown>;
const firing = alertmanagerFixture("firing.json");
const resolvedAlerts = alertmanagerFixture("resolved.json");

describe("mapped hooks over HTTP", () => {
  let h: MappedApp;
  afterEach(async () => h?.close());

  describe("the mail preset", () => {
    test("a push with 3 messages → one run naming all three senders and subjects; no last route → delivered on phone_chat", async () => {
      h = await startMappedApp({ hooks: { presets: ["mail"] } });
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
      h = await startMappedApp({
        hooks: {
          presets: ["mail"],
          mail: { imap: { host: "imap.example.org", user: "me", password: { env: "IMAP_PASSWORD" } }, channel: "bot_chat", to: "98765" },
        },
      });
      const res = await request(h.app).post("/hooks/mail").set(auth).send(mailPush);
      expect(res.status).toBe(202);
      await h.host.waitFor(() => h.host.deliveries.length === 1, 5000, "the delivery");
      expect(h.host.deliveries[0]).toMatchObject({ channel: "bot_chat", to: "98765" });
    });

    test("an invalid push → 400 invalid_payload naming the field", async () => {
      h = await startMappedApp({ hooks: { presets: ["mail"] } });
      const res = await request(h.app)
        .post("/hooks/mail")
        .set(auth)
        .send({ source: "mail", messages: [{ subject: "s", snippet: "x" }] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        ok: false,
        code: "invalid_payload",
        error: "The mail push is invalid.",
        details: [{ field: "messages[0].from", message: "messages[0].from must be a non-empty string" }],
      });
    });
    test("a push rendering more than hooks.maxRenderedBytes → one run whose message is cut to the limit and says so (regression: the preset ignored the bound)", async () => {
      h = await startMappedApp({ hooks: { presets: ["mail"], maxRenderedBytes: 4096 } });
      // 1500 short lines: 3 000 bytes of body, each line rendered indented ("   x"), 6 000 bytes of message.
      const push = {
        source: "mail",
        messages: [{ id: "big@mail.example.org", from: "a@example.org", subject: "lines", snippet: "x", body: "x\n".repeat(1500) }],
      };
      const res = await request(h.app).post("/hooks/mail").set(auth).send(push);
      expect(res.status).toBe(202);
      await h.host.waitFor(() => h.host.turns.length === 1, 5000, "the run");
      const message = h.host.turns[0]!.message;
      expect(message).toContain("Subject: lines");
      expect(message).toContain("… (cut: the rest of this push is over the maxRenderedBytes limit)");
      // It named hooks.maxRenderedBytes, which inside OpenClaw is OpenClaw's own section.
      expect(message).not.toContain("hooks.maxRenderedBytes");
      // The run's message is the rendered one wrapped as untrusted content: the rendered part is at most 4 096 bytes.
      expect(Buffer.byteLength(message)).toBeLessThan(4096 + 1024);
      expect(message).not.toContain("   x\n".repeat(1100));
    });
  });

  describe("a preset plugin's preset (Alertmanager)", () => {
    test("a firing notification → 202 and one run listing the alerts; resolved → a system event for the next heartbeat", async () => {
      h = await startMappedApp({ presets: alertmanagerContributions(), hooks: { presets: ["alertmanager"] } });
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
