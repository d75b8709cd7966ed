/**
 * The body stage of SPEC §4.1: the body must be a JSON object, parsed safely
 * (prototype-polluting keys refused), whatever the Content-Type on direct hooks.
 */
import request from "supertest";
import { bearer, createRouterApp, type RouterApp } from "../helpers/router-app";

describe("JSON parsing of direct hooks", () => {
  let h: RouterApp;
  beforeEach(() => {
    h = createRouterApp();
  });
  afterEach(() => h.close());

  /** Sends the bytes as given (no client-side serialisation). */
  const post = (body: string | Buffer, type = "application/json") =>
    request(h.app)
      .post("/hooks/wake")
      .set(bearer())
      .set("Content-Type", type)
      .serialize((b: unknown) => b as string)
      .send(body as string);

  it("`{` → 400 invalid_json", async () => {
    const res = await post("{");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, code: "invalid_json", error: "The body is not valid JSON." });
  });

  it.each([
    ["[]", "an array"],
    ['"x"', "a string"],
    ["null", "null"],
    ["42", "a number"],
    ["true", "a boolean"],
  ])("%s → 400 invalid_json (not an object)", async (body, what) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, code: "invalid_json", error: `The body must be a JSON object, not ${what}.` });
  });

  it('{"__proto__":{"x":1},"text":"hi"} → 400 invalid_json and no prototype is polluted', async () => {
    const res = await post('{"__proto__":{"x":1},"text":"hi"}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, code: "invalid_json", error: "The body contains a forbidden key (__proto__ or constructor.prototype)." });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).x).toBeUndefined();
    expect(h.dispatcher.wakes).toHaveLength(0);
  });

  it("a nested __proto__ is refused too", async () => {
    const res = await post('{"text":"hi","meta":{"a":{"__proto__":{"polluted":true}}}}');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_json");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('{"constructor":{"prototype":{"x":1}},"text":"hi"} → 400 invalid_json', async () => {
    const res = await post('{"constructor":{"prototype":{"x":1}},"text":"hi"}');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_json");
  });

  it("an empty body → 400 invalid_json", async () => {
    const res = await post("");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, code: "invalid_json", error: "The body is empty; send a JSON object." });
  });

  it("bytes that are not UTF-8 → 400 invalid_json", async () => {
    const res = await post(Buffer.from([0x7b, 0x22, 0x74, 0xff, 0xfe, 0x22, 0x7d]));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("The body is not valid UTF-8.");
  });

  it("JSON nested deeper than 64 levels → 400 invalid_json", async () => {
    const deep = `{"text":"hi","x":${"[".repeat(100)}${"]".repeat(100)}}`;
    const res = await post(deep);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("The body is nested deeper than 64 levels.");
  });

  it("a UTF-8 byte-order mark is tolerated", async () => {
    const res = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"text":"hi"}')]));
    expect(res.status).toBe(200);
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", "application/octet-stream"])(
    "direct hooks parse JSON whatever the Content-Type (%s), so curl -d works",
    async (type) => {
      const res = await post('{"text":"hi"}', type);
      expect(res.status).toBe(200);
      expect(h.dispatcher.wakes[0].action.text).toBe("hi");
    },
  );

  it("a body without Content-Type is parsed as JSON", async () => {
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send(Buffer.from('{"text":"hi"}')).unset("Content-Type");
    expect(res.status).toBe(200);
  });
});
