import { hookNameOf } from "../../src/core/hook-name";

describe("hookNameOf (SPEC §4.1 one identity per hook)", () => {
  it.each(["/a/b", "/a//b", "/a/b/", "/%61/b", "/a/./b", "//a/b//", "/a/%2E/b", "/%61%2Fb".replace("%2F", "/")])("%j is the hook a/b", (path) => {
    expect(hookNameOf(path)).toEqual({ ok: true, name: "a/b" });
  });

  it("decodes once: %2561 is the name %61, not a", () => {
    expect(hookNameOf("/%2561")).toEqual({ ok: true, name: "%61" });
  });

  it.each([
    ["/a/../b", "dot-segment"],
    ["/..", "dot-segment"],
    ["/a/%2e%2e", "dot-segment"],
    ["/a%2Fb", "encoded-slash"],
    ["/a%2fb", "encoded-slash"],
    ["/a\u0000b", "control-character"],
    ["/a%7Fb", "control-character"],
    ["/a%C2%85b", "control-character"],
    ["/%ZZ", "undecodable"],
    ["/", "empty"],
    ["", "empty"],
    ["/./.", "empty"],
  ])("%j names no hook (%s)", (path, reason) => {
    expect(hookNameOf(path)).toEqual({ ok: false, reason });
  });

  it("keeps dots inside a segment (a..b, .well-known) and case", () => {
    expect(hookNameOf("/a..b/.well-known/Push")).toEqual({ ok: true, name: "a..b/.well-known/Push" });
  });
});
