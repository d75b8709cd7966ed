import { allowedModels, createModels } from "../../../src/hosts/openclaw/models";

const openclaw = { agents: { defaults: { model: { primary: "fake/fake-1" }, models: { "fake/fake-1": { alias: "fast" }, "fake/fake-2": {} } } } };

describe("the model allow-list inside OpenClaw", () => {
  it("is only the agent's model without subagent.allowModelOverride (OpenClaw refuses overrides)", () => {
    expect(allowedModels(openclaw, {})).toEqual([{ ref: "fake/fake-1", alias: "fast" }]);
  });

  it("is subagent.allowedModels (plus the agent's model) with the override allowed", () => {
    expect(allowedModels(openclaw, { subagent: { allowModelOverride: true, allowedModels: ["fake/fake-2"] } })).toEqual([
      { ref: "fake/fake-2" },
      { ref: "fake/fake-1", alias: "fast" },
    ]);
  });

  it("falls back to OpenClaw's agents.defaults.models when the override is allowed without a list", () => {
    expect(allowedModels(openclaw, { subagent: { allowModelOverride: true } }).map((m) => m.ref)).toEqual(["fake/fake-1", "fake/fake-2"]);
  });

  it("resolves OpenClaw's aliases", () => {
    expect(createModels(openclaw, {}).resolve("fast")).toBe("fake/fake-1");
    expect(createModels(openclaw, {}).resolve("other/x")).toBe("other/x");
  });
});
