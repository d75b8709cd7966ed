/**
 * Regression (SPEC §9 amplification, §14 no request holds the loop for 50 ms): a
 * mapping without a template (its transform setting none) sends the payload as indented JSON, cut at 16 000
 * characters — but the whole payload was indented first, with JSON.stringify's own
 * indentation, so 240 KB nested 62 deep became a 15.7 MB string (about 60 ms of the
 * event loop) to keep 16 000 characters of it. Sizes are asserted (the strings
 * JSON.stringify built during the request), not times.
 */
import request from "supertest";
import { DEFAULT_CONTENT_MAX_CHARS } from "../../src/mappings/default-content";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { FIXTURES, recordStringified, TRANSFORM_FIXTURES } from "./helpers";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
/** 240 KB: 62 levels of arrays around 120 001 zeros (under hooks.maxBodyBytes, 256 KiB). */
const deepBody = `{"deep":${"[".repeat(62)}0${",0".repeat(120_000)}${"]".repeat(62)}}`;

let h: PluginApp;
let built: number[];
beforeAll(async () => {
  // A transform that keeps the mapping's action: with no template, the text is the default content.
  const mappings = [{ id: "plain", match: { path: "plain" }, action: "wake", transform: { module: "keep.js" } }];
  h = await startPluginApp({ configDir: FIXTURES, hooks: { mappings, transformsDir: TRANSFORM_FIXTURES } });
});
afterAll(() => h.close());
beforeEach(() => void (built = recordStringified()));
afterEach(() => jest.restoreAllMocks());

describe("the default content of a mapping without a template", () => {
  it("a deep payload's default content is cut without indenting the whole payload first", async () => {
    const res = await request(h.app).post("/hooks/plain").set(bearer).set("Content-Type", "application/json").send(deepBody);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, mode: "now", mapping: "plain" });
    // The compact JSON of the payload (about the body's size) is the largest string built, not its indented 15.7 MB.
    expect(Math.max(...built)).toBeLessThanOrEqual(2 * deepBody.length);
    await h.host.waitForSystemEvents(1);
    const text = h.host.systemEvents[0]!.text;
    const indented = JSON.stringify(JSON.parse(deepBody), null, 2);
    expect(text).toContain(
      `Webhook "plain" (mapping plain) received this payload:\n${indented.slice(0, DEFAULT_CONTENT_MAX_CHARS)}\n… (payload cut at ${DEFAULT_CONTENT_MAX_CHARS} characters)`,
    );
  });
});
