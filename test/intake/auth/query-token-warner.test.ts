import { createQueryTokenWarner } from "../../../src/intake/auth/query-token-warner";

describe("createQueryTokenWarner", () => {
  it("warns at most once per interval per client", () => {
    let now = 0;
    const shouldWarn = createQueryTokenWarner({ clock: () => now });
    expect(shouldWarn("a")).toBe(true);
    expect(shouldWarn("a")).toBe(false);
    expect(shouldWarn("b")).toBe(true);
    now += 59_999;
    expect(shouldWarn("a")).toBe(false);
    now += 1;
    expect(shouldWarn("a")).toBe(true);
  });

  it("remembers a bounded number of clients", () => {
    const now = 0;
    const shouldWarn = createQueryTokenWarner({ clock: () => now, maxClients: 3 });
    for (const c of ["a", "b", "c", "d"]) expect(shouldWarn(c)).toBe(true);
    // "a" was evicted to make room, so it warns again; "d" is still remembered.
    expect(shouldWarn("a")).toBe(true);
    expect(shouldWarn("d")).toBe(false);
  });
});
