import { parseBody, parseForm, parseJsonObject } from "../../../src/actions/body/parse-body";

const buf = (s: string) => Buffer.from(s, "utf8");

describe("parseBody: direct hooks (JSON whatever the Content-Type)", () => {
  it.each([undefined, "application/json", "text/plain", "application/x-www-form-urlencoded", "image/png"])("Content-Type %s → JSON", (contentType) => {
    expect(parseBody(buf('{"text":"hi"}'), { mapped: false, contentType })).toEqual({ ok: true, value: { text: "hi" } });
  });

  it("an empty body is invalid_json", () => {
    const r = parseBody(buf("  \n"), { mapped: false });
    expect(!r.ok && [r.error.code, r.error.message]).toEqual(["invalid_json", "The body is empty; send a JSON object."]);
  });

  it("ignores a non-UTF-8 charset parameter (still decoded as UTF-8)", () => {
    expect(parseBody(buf('{"text":"hi"}'), { mapped: false, contentType: "application/json; charset=iso-8859-1" }).ok).toBe(true);
  });
});

describe("parseBody: mapped hooks", () => {
  const mapped = (body: string, contentType?: string) => parseBody(buf(body), { mapped: true, contentType });

  it("parses JSON, +json types and bodies without a Content-Type", () => {
    expect(mapped('{"a":1}', "application/json; charset=utf-8")).toEqual({ ok: true, value: { a: 1 } });
    expect(mapped('{"a":1}', "application/cloudevents+json")).toEqual({ ok: true, value: { a: 1 } });
    expect(mapped('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it("parses form bodies into null-prototype objects", () => {
    const r = mapped("a=1&b=two+words&c=%7Bx", "application/x-www-form-urlencoded");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.getPrototypeOf(r.value)).toBeNull();
    expect({ ...r.value }).toEqual({ a: "1", b: "two words", c: "{x" });
  });

  it("unwraps a payload field holding JSON", () => {
    const body = `payload=${encodeURIComponent('{"ref":"refs/heads/main"}')}`;
    expect(mapped(body, "application/x-www-form-urlencoded")).toEqual({ ok: true, value: { ref: "refs/heads/main" } });
  });

  it("keeps a payload field that is plain text as a form field", () => {
    const r = mapped("payload=hello", "application/x-www-form-urlencoded");
    expect(r.ok && { ...r.value }).toEqual({ payload: "hello" });
  });

  it("refuses prototype-polluting keys inside a form payload field", () => {
    const body = `payload=${encodeURIComponent('{"__proto__":{"x":1}}')}`;
    const r = mapped(body, "application/x-www-form-urlencoded");
    expect(!r.ok && r.error.message).toBe("The form field payload contains a forbidden key (__proto__ or constructor.prototype).");
  });

  it("treats a form-typed body starting with { as JSON (curl -d)", () => {
    expect(mapped(' {"a":1}', "application/x-www-form-urlencoded")).toEqual({ ok: true, value: { a: 1 } });
  });

  it("a text/plain body is { text } with the body as it came", () => {
    const r = mapped("hello\n  world ", "text/plain; charset=utf-8");
    expect(r.ok && { ...r.value }).toEqual({ text: "hello\n  world " });
  });

  it("an empty body is an empty payload", () => {
    const r = mapped("");
    expect(r.ok && Object.keys(r.value)).toEqual([]);
  });

  it("other media types (application/octet-stream) → 415", () => {
    const r = mapped("x", "application/octet-stream");
    expect(!r.ok && [r.error.code, r.error.status]).toEqual(["unsupported_media_type", 415]);
  });

  it("does not echo a strange media type", () => {
    const r = mapped("x", "text/<script>");
    expect(!r.ok && r.error.message).toBe(
      "This Content-Type is not supported on mapped hooks; send application/json, application/x-www-form-urlencoded, multipart/form-data or text/plain.",
    );
  });

  it("a charset other than UTF-8 → 415", () => {
    const r = mapped('{"a":1}', "application/json; charset=utf-16");
    expect(!r.ok && r.error.message).toBe("The body must be encoded as UTF-8 (charset=utf-8).");
  });
});

describe("parseJsonObject", () => {
  it.each([
    ["{", "The body is not valid JSON."],
    ["[]", "The body must be a JSON object, not an array."],
    ['"x"', "The body must be a JSON object, not a string."],
    ["null", "The body must be a JSON object, not null."],
    ['{"__proto__":{"x":1}}', "The body contains a forbidden key (__proto__ or constructor.prototype)."],
    ['{"a":{"constructor":{"prototype":{"x":1}}}}', "The body contains a forbidden key (__proto__ or constructor.prototype)."],
    ['{"\\u005f_proto__":{"x":1}}', "The body contains a forbidden key (__proto__ or constructor.prototype)."],
    ['{"a":{"constr\\u0075ctor":{"prototype":{"x":1}}}}', "The body contains a forbidden key (__proto__ or constructor.prototype)."],
    [`{"a":${"[".repeat(64)}${"]".repeat(64)}}`, "The body is nested deeper than 64 levels."],
  ])("%s → invalid_json", (text, message) => {
    const r = parseJsonObject(text);
    expect(!r.ok && [r.error.code, r.error.message]).toEqual(["invalid_json", message]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("accepts a constructor key that is not a prototype path", () => {
    expect(parseJsonObject('{"constructor":"Acme Corp"}')).toEqual({ ok: true, value: { constructor: "Acme Corp" } });
  });

  it("accepts nesting up to 64 levels", () => {
    expect(parseJsonObject(`{"a":${"[".repeat(63)}${"]".repeat(63)}}`).ok).toBe(true);
  });

  it("brackets inside strings (escaped quotes and backslashes included) do not count as nesting", () => {
    const value = { a: `${"[{".repeat(100)}"[[[\\`, b: "]]]" };
    expect(parseJsonObject(JSON.stringify(value))).toEqual({ ok: true, value });
  });

  it("a 120,000-deep body is refused as too deep before it is parsed (regression: parsing it stalled the event loop for ~70 ms)", () => {
    const parse = jest.spyOn(JSON, "parse");
    const r = parseJsonObject(`{"n":${"[".repeat(120_000)}${"]".repeat(120_000)}}`);
    expect(!r.ok && [r.error.code, r.error.message]).toEqual(["invalid_json", "The body is nested deeper than 64 levels."]);
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
  });
});

describe("parseForm", () => {
  it("collects repeated fields into arrays", () => {
    expect({ ...parseForm("a=1&a=2&a=3&b=") }).toEqual({ a: ["1", "2", "3"], b: "" });
  });
});
