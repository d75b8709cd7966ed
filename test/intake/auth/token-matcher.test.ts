import { createTokenMatcher } from "../../../src/intake/auth/token-matcher";

describe("createTokenMatcher", () => {
  const matches = createTokenMatcher("s3cret-token-0123456789");

  it("matches only the exact token", () => {
    expect(matches("s3cret-token-0123456789")).toBe(true);
    expect(matches("s3cret-token-012345678")).toBe(false);
    expect(matches("s3cret-token-01234567890")).toBe(false);
    expect(matches("S3cret-token-0123456789")).toBe(false);
    expect(matches("")).toBe(false);
  });

  it("compares candidates of any length (fixed-length digests)", () => {
    expect(matches("x".repeat(10_000))).toBe(false);
  });

  it("an empty secret matches nothing, not even the empty string", () => {
    expect(createTokenMatcher("")("")).toBe(false);
  });
});
