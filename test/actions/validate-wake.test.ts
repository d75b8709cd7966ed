import { validateWake } from "../../src/actions/validate";

const valid = (over: Record<string, unknown> = {}) => ({ text: "disk almost full", ...over });

describe("validateWake", () => {
  it("accepts a valid body with defaults", () => {
    expect(validateWake(valid())).toEqual({ ok: true, value: { kind: "wake", text: "disk almost full", mode: "now" } });
  });

  it("trims the text and keeps next-heartbeat", () => {
    const r = validateWake(valid({ text: "  hi \n", mode: "next-heartbeat" }));
    expect(r).toEqual({ ok: true, value: { kind: "wake", text: "hi", mode: "next-heartbeat" } });
  });

  it("ignores unknown fields", () => {
    const r = validateWake(valid({ other: 1, kind: "wake" }));
    expect(r.ok && r.value).toEqual({ kind: "wake", text: "disk almost full", mode: "now" });
  });

  it.each([
    ["text missing", { text: undefined }, "text", "text is required"],
    ["text empty", { text: "" }, "text", "text must not be empty or blank"],
    ["text blank", { text: " \t\n" }, "text", "text must not be empty or blank"],
    ["text a number", { text: 1 }, "text", "text must be a string"],
    ["text null", { text: null }, "text", "text must be a string"],
    ["mode unknown", { mode: "later" }, "mode", "mode must be one of: now, next-heartbeat"],
    ["mode a number", { mode: 1 }, "mode", "mode must be one of: now, next-heartbeat"],
  ])("%s → invalid_payload naming the field", (_what, over, field, message) => {
    const r = validateWake(valid(over));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("invalid_payload");
    expect(r.error.status).toBe(400);
    expect(r.error.details).toEqual([{ field, message }]);
    expect(r.error.message).toBe(`Invalid request body: ${message}.`);
  });

  it.each([[[]], [null], ["x"], [5]])("a non-object (%j) → invalid_payload on the body", (raw) => {
    const r = validateWake(raw);
    expect(!r.ok && r.error.details).toEqual([{ field: "body", message: "the body must be a JSON object" }]);
  });

  it("lists every problem", () => {
    const r = validateWake({ text: "", mode: "later" });
    expect(!r.ok && r.error.details?.map((d) => d.field)).toEqual(["text", "mode"]);
    expect(!r.ok && r.error.message).toBe("Invalid request body (2 problems): text must not be empty or blank; mode must be one of: now, next-heartbeat.");
  });
});
