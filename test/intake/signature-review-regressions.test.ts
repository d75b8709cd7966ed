/**
 * Regressions found by a hostile review of sender verification (SPEC §10, §7):
 * - a `token-header` secret reached templates under a header name the credential
 *   rule did not know (`verify.header: "x-hook-auth"`);
 * - a captured signed request replayed with a new, unsigned `Idempotency-Key`, or to
 *   another spelling of the path (`/hooks/%2Fsw`), started a new run;
 * - standard-webhooks decoded the body as UTF-8 before checking, so the signature did
 *   not cover the exact bytes received.
 */
import { createHmac } from "node:crypto";
import request from "supertest";
import { signHeaders } from "../helpers/signers";
import { startPluginApp, type PluginApp } from "../helpers/plugin-app";

const SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const STATIC = "static-secret-value-42-abcdef";

let h: PluginApp;
afterEach(() => h?.close());

describe("sender verification: what a review found", () => {
  test("a token-header secret under an unusual header name never reaches templates (regression: {{ headers.x-hook-auth }} showed it)", async () => {
    h = await startPluginApp({
      hooks: {
        mappings: [
          {
            id: "auth",
            match: { path: "auth" },
            messageTemplate: "auth=[{{ headers.x-hook-auth }}] {{ payload.action }}",
            verify: { scheme: "token-header", header: "x-hook-auth", secret: STATIC },
          },
        ],
      },
    });
    const res = await request(h.app).post("/hooks/auth").set("X-Hook-Auth", STATIC).send({ action: "opened" });
    expect(res.status).toBe(202);
    await h.host.waitFor(() => h.host.turns.length === 1, 5000, "the run");
    expect(h.host.turns[0]!.message).toContain("auth=[] opened");
    expect(h.host.turns[0]!.message).not.toContain(STATIC);
  });

  describe("a captured standard-webhooks request replayed", () => {
    const body = JSON.stringify({ type: "invoice.paid", id: "evt_1" });
    beforeEach(async () => {
      h = await startPluginApp({
        hooks: {
          mappings: [{ id: "sw", match: { path: "sw" }, messageTemplate: "{{ payload.type }}", verify: { scheme: "standard-webhooks", secret: SW_SECRET } }],
        },
      });
    });
    const send = async (path: string, extra: Record<string, string> = {}) =>
      request(h.app)
        .post(path)
        .set("Content-Type", "application/json")
        .set(await signHeaders("standard-webhooks", SW_SECRET, body, Math.floor(Date.now() / 1000), "msg_replayed"))
        .set(extra)
        .send(body);

    test("with a new, unsigned Idempotency-Key → the same run, replayed (regression: a new run)", async () => {
      const first = await send("/hooks/sw", { "Idempotency-Key": "k1" });
      const again = await send("/hooks/sw", { "Idempotency-Key": "k2" });
      expect([first.status, again.status]).toEqual([202, 202]);
      expect(again.body.runId).toBe(first.body.runId);
      expect(again.headers["idempotent-replayed"]).toBe("true");
    });

    test("to another spelling of the path (/hooks//sw/) → the same run, replayed (regression: a new run)", async () => {
      const first = await send("/hooks/sw");
      const again = await send("/hooks//sw/");
      expect([first.status, again.status]).toEqual([202, 202]);
      expect(again.body.runId).toBe(first.body.runId);
      expect(again.headers["idempotent-replayed"]).toBe("true");
    });

    test("to /hooks/%2Fsw (an encoded /) → 404, no new run (SPEC §4.1: an encoded / names no hook)", async () => {
      const first = await send("/hooks/sw");
      const again = await send("/hooks/%2Fsw");
      expect([first.status, again.status, again.body.code]).toEqual([202, 404, "not_found"]);
    });
  });

  test("standard-webhooks signs the exact bytes: a signature over the UTF-8-decoded text of a non-UTF-8 body is refused", async () => {
    h = await startPluginApp({
      hooks: { mappings: [{ id: "sw", match: { path: "sw" }, messageTemplate: "x", verify: { scheme: "standard-webhooks", secret: SW_SECRET } }] },
    });
    const key = Buffer.from(SW_SECRET.slice("whsec_".length), "base64");
    const ts = String(Math.floor(Date.now() / 1000));
    const raw = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    const sign = (bytes: Buffer) => `v1,${createHmac("sha256", key).update(`msg_1.${ts}.`).update(bytes).digest("base64")}`;
    // Sent as application/octet-stream so the test client passes the bytes through untouched.
    const headers = { "Content-Type": "application/octet-stream", "webhook-id": "msg_1", "webhook-timestamp": ts };
    const overDecoded = await request(h.app)
      .post("/hooks/sw")
      .set(headers)
      .set("webhook-signature", sign(Buffer.from(raw.toString("utf8"))))
      .send(raw);
    expect([overDecoded.status, overDecoded.body.code]).toEqual([401, "invalid_signature"]);
    // Signed over the bytes themselves, the signature holds: the request gets past verification
    // and is refused by the next stage (a mapped hook takes JSON or form bodies).
    const overBytes = await request(h.app).post("/hooks/sw").set(headers).set("webhook-signature", sign(raw)).send(raw);
    expect([overBytes.status, overBytes.body.code]).toEqual([415, "unsupported_media_type"]);
  });
});
