/** randomHex draws ids from a pooled CSPRNG buffer: right length, hex only, no repeats across a pool refill. */
import { randomHex } from "../../src/core/random-hex";

describe("randomHex", () => {
  it("returns 2 × bytes lowercase hex characters", () => {
    expect(randomHex(16)).toMatch(/^[0-9a-f]{32}$/);
    expect(randomHex(1)).toMatch(/^[0-9a-f]{2}$/);
  });

  it("gives distinct values across several pool refills (4 KiB pool, 3,000 × 16 bytes)", () => {
    const ids = Array.from({ length: 3000 }, () => randomHex(16));
    expect(new Set(ids).size).toBe(3000);
  });

  it("refuses a size outside 1–4096 bytes, naming the rule", () => {
    expect(() => randomHex(0)).toThrow("bytes must be an integer from 1 to 4096");
    expect(() => randomHex(4097)).toThrow("bytes must be an integer from 1 to 4096");
    expect(() => randomHex(1.5)).toThrow("bytes must be an integer from 1 to 4096");
  });
});
