import { allowedMethod, hookName, isUndecodableHookPath, parseHookRoute } from "../../src/http/hook-route";

describe("parseHookRoute", () => {
  it.each([
    ["/wake", { kind: "wake" }],
    ["/wake/", { kind: "wake" }],
    ["//agent", { kind: "agent" }],
    ["/runs/abc-123", { kind: "run", runId: "abc-123" }],
    ["/github", { kind: "mapped", name: "github" }],
    ["/github/push/", { kind: "mapped", name: "github/push" }],
    ["/runs", { kind: "runs" }],
    ["/deliveries", { kind: "deliveries" }],
    ["/deliveries/d-1", { kind: "delivery", id: "d-1" }],
    ["/deliveries/d-1/replay", { kind: "replay", id: "d-1" }],
    ["/deliveries/a/b", { kind: "delivery", id: "a/b" }],
    ["/runs/a/b", { kind: "mapped", name: "runs/a/b" }],
    ["/Wake", { kind: "mapped", name: "Wake" }],
    ["/caf%C3%A9", { kind: "mapped", name: "café" }],
  ])("%s → %j", (path, route) => {
    expect(parseHookRoute(path)).toEqual(route);
  });

  it.each(["/", "", "//", "/%E0%A4%A"])("%j is not a hook (404)", (path) => {
    expect(parseHookRoute(path)).toBeUndefined();
  });

  it.each([
    ["/%ZZ", true],
    ["/%E0%A4%A", true],
    ["/a/%C3", true],
    ["/", false],
    ["", false],
    ["/caf%C3%A9", false],
    ["/wake", false],
  ])("isUndecodableHookPath(%j) → %s", (path, undecodable) => {
    expect(isUndecodableHookPath(path)).toBe(undecodable);
  });
});

describe("hookName and allowedMethod", () => {
  it("names routes and allows GET only on run status", () => {
    expect(hookName({ kind: "wake" })).toBe("wake");
    expect(hookName({ kind: "run", runId: "x" })).toBe("runs");
    expect(hookName({ kind: "mapped", name: "a/b" })).toBe("a/b");
    expect(allowedMethod({ kind: "run", runId: "x" })).toBe("GET");
    expect(allowedMethod({ kind: "agent" })).toBe("POST");
    expect(allowedMethod({ kind: "mapped", name: "x" })).toBe("POST");
  });
});
