import { extractIdempotencyKey } from "../../../src/intake/idempotency/idempotency-key";

describe("extractIdempotencyKey", () => {
  it("takes the first header present, in order of preference", () => {
    expect(extractIdempotencyKey({ "idempotency-key": "a", "webhook-id": "b" })).toEqual({ ok: true, value: { header: "idempotency-key", key: "a" } });
    expect(extractIdempotencyKey({ "webhook-id": "b", "svix-id": "c" })).toEqual({ ok: true, value: { header: "webhook-id", key: "b" } });
    expect(extractIdempotencyKey({ "svix-id": "c", "x-github-delivery": "d" })).toEqual({ ok: true, value: { header: "svix-id", key: "c" } });
    expect(extractIdempotencyKey({ "x-github-delivery": "d" })).toEqual({ ok: true, value: { header: "x-github-delivery", key: "d" } });
  });

  it("skips empty headers and trims", () => {
    expect(extractIdempotencyKey({ "idempotency-key": "  ", "webhook-id": " msg_1 " })).toEqual({ ok: true, value: { header: "webhook-id", key: "msg_1" } });
    expect(extractIdempotencyKey({})).toEqual({ ok: true, value: undefined });
  });

  it.each(["k".repeat(256), "has space", "tab\tkey", "ünïcode"])("refuses %j with invalid_payload naming the header", (key) => {
    const r = extractIdempotencyKey({ "idempotency-key": key });
    expect(!r.ok && [r.error.code, r.error.details?.[0].field]).toEqual(["invalid_payload", "idempotency-key"]);
  });

  it("accepts a 255-character key", () => {
    expect(extractIdempotencyKey({ "idempotency-key": "k".repeat(255) }).ok).toBe(true);
  });
});
