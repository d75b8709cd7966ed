/**
 * Regression (issue 22 item 4): malformed multipart blocked the event loop
 * ~1.5 s per MiB — busboy got the whole body in one synchronous call and raised a
 * new error per malformed part (4 MiB of header-less parts held /healthz 4.8 s).
 * Now the parts are counted before parsing and the body is fed in chunks, one per
 * turn of the loop, stopping at the first malformed part (the mechanism's tests
 * are in test/actions/body/parse-multipart.test.ts; the loop delay is a bench
 * figure: bench/run.js, "malformed multipart"). Here: the answers through the
 * whole plugin with `hooks.maxBodyBytes` raised to 8 MiB.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

const MIB = 1024 * 1024;
const TYPE = "multipart/form-data; boundary=b";
const HOOKS = {
  maxBodyBytes: 8 * MIB,
  // `payload.note | json` builds the whole 4 MiB value before truncate takes its part, and every
  // string a rendering builds draws on hooks.maxRenderedBytes (docs/security.md "Amplification").
  maxRenderedBytes: 8 * MIB,
  rateLimit: { enabled: false },
  mappings: [{ id: "form", match: { path: "form" }, action: "wake", textTemplate: "form {{ payload.subject }}: {{ payload.note | json | truncate: 8 }}" }],
};
const field = (name: string, value: string) => `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const headerless = (n: number) => "--b\r\nnot a header\r\n".repeat(n);

let plugin: PluginApp;
beforeAll(async () => (plugin = await startPluginApp({ hooks: HOOKS })));
afterAll(() => plugin.close());

const post = (body: string) => request(plugin.app).post("/hooks/form").set("Authorization", `Bearer ${TEST_TOKEN}`).set("Content-Type", TYPE).send(body);

describe("malformed multipart no longer blocks the event loop", () => {
  it("4 MiB of header-less parts → 400 invalid_payload, refused by counting the parts before parsing", async () => {
    const res = await post(headerless(Math.ceil((4 * MIB) / 19)));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, code: "invalid_payload", error: "The multipart/form-data body has more than 1000 fields." });
  });

  it("4 MiB whose first part is malformed → 400 naming the malformed part header", async () => {
    const res = await post(headerless(1) + field("note", "x".repeat(4 * MIB)) + "--b--\r\n");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, code: "invalid_payload", error: "The multipart/form-data body is malformed: a part header is malformed." });
  });

  it("a valid 4 MiB body (four fields of almost 1 MiB, the field bound) fed in chunks is read whole", async () => {
    const notes = Array.from({ length: 4 }, (_, i) => field("note", String(i).repeat(MIB - 100))).join("");
    const res = await post(field("subject", "hello") + notes + "--b--\r\n");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, mode: "now", mapping: "form" });
    expect(plugin.host.systemEvents.at(-1)?.text).toContain('form hello: ["000000…');
  });
});
