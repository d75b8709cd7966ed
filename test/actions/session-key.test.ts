import { confineSessionKey, defaultSessionKey } from "../../src/actions/session-key";

describe("confineSessionKey", () => {
  it.each([
    ["main", ["hook:"], "hook:main"],
    ["hook:crm-1", ["hook:"], "hook:crm-1"],
    ["agent:main:whatever", ["hook:"], "hook:agent:main:whatever"],
    ["HOOK:x", ["hook:"], "hook:HOOK:x"],
    ["crm:42", ["hook:", "crm:"], "crm:42"],
    ["other", ["crm:"], "hook:other"],
    ["main", [""], "hook:main"],
  ])("%s with %j → %s", (key, prefixes, expected) => {
    expect(confineSessionKey(key, prefixes)).toBe(expected);
  });
});

describe("defaultSessionKey", () => {
  it("is hook:<uuid v4> by default", () => {
    expect(defaultSessionKey()).toMatch(/^hook:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
  it("uses the injected generator", () => {
    expect(defaultSessionKey(() => "fixed")).toBe("hook:fixed");
  });
});
