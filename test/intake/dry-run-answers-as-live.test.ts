/**
 * The dry run is the accept path of a live request with a dispatcher that only
 * records (SPEC §4.1 "One accept path", issue 20): the same request, sent live to
 * the plugin and dry-run through the plugin's own inspector (the dashboard's form,
 * `gateway webhooks test` prints the same report), gets the same verdict — a
 * text/plain and a multipart body are accepted by both, a mapping's render limit
 * refuses both with 400 render_too_large, and a mapping's `response` without a
 * body shows the default body the live hook answers with (the dry run's own copy of
 * the tail printed `Response: 202 undefined`), and a fan-out's bad element is
 * reported as the live refusal names it (`items[1].message`). The dry run stores and
 * runs nothing.
 */
import request from "supertest";
import type { HookInspector } from "../../src/core/inspection";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const MAPPINGS = [
  { id: "note", match: { path: "note" }, action: "wake", textTemplate: "note: {{ payload.text }}" },
  { id: "form", match: { path: "form" }, action: "wake", textTemplate: "{{ payload.name }} says {{ payload.msg }}" },
  { id: "big", match: { path: "big" }, action: "wake", textTemplate: "{{ payload.a }}{{ payload.a }}{{ payload.a }}{{ payload.a }}{{ payload.a }}" },
  { id: "ack", match: { path: "ack" }, action: "wake", textTemplate: "acknowledged", response: { status: 202 } },
  { id: "batch", match: { path: "batch" }, forEach: "events", messageTemplate: "{{ item.text }}", deliver: false },
];
const BOUNDARY = "----dry-run-boundary";
const MULTIPART = [
  `--${BOUNDARY}`,
  'Content-Disposition: form-data; name="name"',
  "",
  "Ada",
  `--${BOUNDARY}`,
  'Content-Disposition: form-data; name="msg"',
  "",
  "hello",
  `--${BOUNDARY}--`,
  "",
].join("\r\n");

let h: PluginApp;
let inspector: HookInspector;
beforeEach(async () => {
  h = await startPluginApp({ hooks: { maxRenderedBytes: 4096, mappings: MAPPINGS } });
  inspector = h.host.inspectors[0];
});
afterEach(() => h.close());

/** The request live (its answer), then as a dry run (its report). */
async function both(hook: string, contentType: string, body: string) {
  const live = await request(h.app).post(`/hooks/${hook}`).set(bearer).set("Content-Type", contentType).send(body);
  const events = h.host.systemEvents.length;
  const dry = await inspector.dryRun({ hook, body, headers: { "Content-Type": contentType } });
  // The dry run posted nothing.
  expect(h.host.systemEvents).toHaveLength(events);
  return { live, dry };
}

describe("the dry run answers as the live request does", () => {
  test("a text/plain body: live 200, and the dry run renders the same text", async () => {
    const { live, dry } = await both("note", "text/plain; charset=utf-8", "hello");
    expect([live.status, live.body]).toEqual([200, { ok: true, mode: "now", mapping: "note" }]);
    expect([dry.ok, dry.mappingId, dry.action?.text]).toEqual([true, "note", "note: hello"]);
  });

  test("a multipart/form-data body: live 200, and the dry run reads the same fields", async () => {
    const { live, dry } = await both("form", `multipart/form-data; boundary=${BOUNDARY}`, MULTIPART);
    expect(live.status).toBe(200);
    expect([dry.ok, dry.action?.text]).toEqual([true, "Ada says hello"]);
  });

  test("a mapping's render limit: live 400 render_too_large, and the dry run says the hook would fail with it", async () => {
    const { live, dry } = await both("big", "application/json", JSON.stringify({ a: "x".repeat(1000) }));
    expect([live.status, live.body.code]).toEqual([400, "render_too_large"]);
    expect(dry.ok).toBe(false);
    expect(dry.lines[0]).toBe(
      "The hook would fail with 400 render_too_large: The templates and messages of this request render to more than 4096 bytes (hooks.maxRenderedBytes); nothing was accepted.",
    );
  });

  test("a response without a body: the dry run shows the default body the live hook answers with", async () => {
    const { live, dry } = await both("ack", "application/json", "{}");
    expect([live.status, live.body]).toEqual([202, { ok: true, mode: "now", mapping: "ack" }]);
    expect(dry.lines).toContain('Response: 202 {"ok":true,"mode":"now","mapping":"ack"}');
  });

  test("a fan-out with a bad element: live 400 invalid_payload naming items[1].message, and the dry run reports that refusal", async () => {
    const { live, dry } = await both("batch", "application/json", JSON.stringify({ events: [{ text: "one" }, { text: "" }] }));
    expect([live.status, live.body.code, live.body.details]).toEqual([
      400,
      "invalid_payload",
      [{ field: "items[1].message", message: "message must not be empty or blank" }],
    ]);
    expect(dry).toEqual({
      ok: false,
      lines: [
        `Mapping batch matched, but its action is invalid (the hook would answer 400 invalid_payload): ${live.body.error}`,
        "  - items[1].message: message must not be empty or blank",
      ],
    });
    expect(
      await request(h.app)
        .get("/hooks/runs")
        .set(bearer)
        .then((r) => r.body.runs),
    ).toEqual([]);
  });

  test("a body that does not parse: live 400 invalid_json, and the dry run reports the body", async () => {
    const { live, dry } = await both("note", "application/json", "[1,2]");
    expect([live.status, live.body.code]).toEqual([400, "invalid_json"]);
    expect([dry.ok, dry.lines[0]]).toEqual([false, "The body must be a JSON object, not an array. (invalid_json)"]);
  });

  test("a gzip Content-Encoding: live 415, and the dry run (which rendered the body as plain) reports the same refusal", async () => {
    const headers = { "Content-Type": "application/json", "Content-Encoding": "gzip" };
    const live = await request(h.app)
      .post("/hooks/note")
      .set(bearer)
      .set(headers)
      .send(JSON.stringify({ text: "hi" }));
    expect([live.status, live.body]).toEqual([
      415,
      { ok: false, code: "unsupported_media_type", error: "Content-Encoding gzip is not supported; send the body uncompressed." },
    ]);
    const dry = await inspector.dryRun({ hook: "note", body: JSON.stringify({ text: "hi" }), headers });
    expect(dry).toEqual({ ok: false, lines: ["Content-Encoding gzip is not supported; send the body uncompressed. (unsupported_media_type)"] });
    expect(h.host.systemEvents).toEqual([]);
  });
});
