import { allowedMethod, hookName, parseHookRoute } from "../../src/core/hook-route";

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
    ["/a//b", { kind: "mapped", name: "a/b" }],
    ["/a/./b", { kind: "mapped", name: "a/b" }],
    ["/%61/b", { kind: "mapped", name: "a/b" }],
    ["/./wake", { kind: "wake" }],
  ])("%s → %j", (path, route) => {
    expect(parseHookRoute(path, "/hooks")).toEqual({ ok: true, route });
  });

  it.each([
    ["/", "No hook at /hooks itself"],
    ["", "No hook at /hooks itself"],
    ["//", "No hook at /hooks itself"],
    ["/./", "No hook at /hooks itself"],
    ["/%E0%A4%A", "not valid percent-encoded UTF-8"],
    ["/%ZZ", "not valid percent-encoded UTF-8"],
    ["/a/%C3", "not valid percent-encoded UTF-8"],
    ["/a/../b", "contains a .. segment"],
    ["/a/%2E%2E/b", "contains a .. segment"],
    ["/a%2Fb", "encoded /"],
    ["/a%2fb", "encoded /"],
    ["/a%0Ab", "control character"],
    ["/%1B%5D0%3Btitle%07", "control character"],
    ["/a%C2%9Bb", "control character"],
  ])("%j names no hook: 404 (%s)", (path, sentence) => {
    const parsed = parseHookRoute(path, "/hooks");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.status).toBe(404);
    expect(parsed.error.code).toBe("not_found");
    expect(parsed.error.message).toContain(sentence);
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
