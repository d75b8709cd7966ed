import { validateAction } from "../../src/actions/validate";
import type { RawAction } from "../../src/core/ports";
import { createFakeHost } from "../helpers/fake-host";
import { resolvedConfig } from "../helpers/resolved-config";

const ctx = { runtime: createFakeHost({ models: [{ ref: "a/b" }] }).api.runtime, config: resolvedConfig(), idGen: () => "u" };

describe("validateAction", () => {
  it("validates a wake action by the wake rules", () => {
    expect(validateAction({ kind: "wake", text: "t", mode: "next-heartbeat" }, ctx)).toEqual({
      ok: true,
      value: { kind: "wake", text: "t", mode: "next-heartbeat" },
    });
  });

  it("validates an agent action by the agent rules (with defaults)", () => {
    const r = validateAction({ kind: "agent", message: "m", sessionKey: "main" }, ctx);
    expect(r.ok && r.value).toMatchObject({ kind: "agent", message: "m", sessionKey: "hook:main", name: "Hook", channel: "last" });
  });

  it("applies the model allow-list to mapped actions", () => {
    const r = validateAction({ kind: "agent", message: "m", model: "x/y" }, ctx);
    expect(!r.ok && r.error.code).toBe("model_not_allowed");
  });

  it("names the subject in the sentence", () => {
    const r = validateAction({ kind: "wake", text: "" }, ctx, "action of mapping gh");
    expect(!r.ok && r.error.message).toBe("Invalid action of mapping gh: text must not be empty or blank.");
  });

  it("an unknown kind → invalid_payload naming kind", () => {
    const r = validateAction({ kind: "later" } as unknown as RawAction, ctx);
    expect(!r.ok && r.error.code).toBe("invalid_payload");
    expect(!r.ok && r.error.details).toEqual([{ field: "kind", message: "kind must be one of: wake, agent" }]);
  });
});
