/**
 * Regression (review of issue 20's request path): docs/responses.md tells Meta users to add
 * `verify: { scheme: "github", … }` with the app secret beside `handshake.meta` (Meta signs its
 * event POSTs with X-Hub-Signature-256). On such a path admit() took the signature route before
 * the handshake, so Meta's callback-URL verification GET — which carries no signature — got
 * 401 `invalid_signature` and the subscription could never be set up. SPEC §12: the handshake GET
 * is answered with its challenge; the signed POSTs stay verified.
 *
 * The whole plugin on the fake host; the POST is signed by the real @octokit/webhooks.
 */
import { Webhooks } from "@octokit/webhooks";
import request from "supertest";
import { startPluginApp, type PluginApp } from "../helpers/plugin-app";

const META_TOKEN = "meta-verify-token-42";
const APP_SECRET = "meta-app-secret-0123456789abcdef";
const HANDSHAKE = { "hub.mode": "subscribe", "hub.verify_token": META_TOKEN, "hub.challenge": "1158201444" };

describe("Meta's verification GET refused on a signed path", () => {
  let h: PluginApp;
  beforeEach(async () => {
    h = await startPluginApp({
      hooks: {
        mappings: [
          {
            id: "wa",
            match: { path: "whatsapp" },
            handshake: { meta: { verifyToken: META_TOKEN } },
            verify: { scheme: "github", secret: APP_SECRET },
            action: "agent",
            messageTemplate: "wa {{ payload.entry }}",
          },
        ],
      },
    });
  });
  afterEach(() => h.close());

  it("the verification GET with the right verify token → 200 text/plain with the challenge", async () => {
    const res = await request(h.app).get("/hooks/whatsapp").query(HANDSHAKE);
    expect([res.status, res.headers["content-type"], res.text]).toEqual([200, "text/plain; charset=utf-8", "1158201444"]);
  });

  it("the verification GET with a wrong verify token → 403 forbidden", async () => {
    const res = await request(h.app)
      .get("/hooks/whatsapp")
      .query({ ...HANDSHAKE, "hub.verify_token": "not-the-verify-token" });
    expect([res.status, res.body.ok, res.body.code]).toEqual([403, false, "forbidden"]);
  });

  it("event POSTs on that path stay verified: signed → 202, unsigned → 401 invalid_signature", async () => {
    const body = JSON.stringify({ entry: "hello" });
    const signed = await request(h.app)
      .post("/hooks/whatsapp")
      .set({ "Content-Type": "application/json", "X-Hub-Signature-256": await new Webhooks({ secret: APP_SECRET }).sign(body) })
      .send(body);
    expect(signed.status).toBe(202);
    const unsigned = await request(h.app).post("/hooks/whatsapp").set("Content-Type", "application/json").send(body);
    expect([unsigned.status, unsigned.body.code]).toEqual([401, "invalid_signature"]);
  });
});
