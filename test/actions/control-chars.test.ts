import { hasControlChars, stripControlChars } from "../../src/actions/control-chars";

describe("control characters", () => {
  it("strips C0/C1 controls, line separators and bidi overrides", () => {
    expect(stripControlChars("CI\n\t\u0000\u001b[31m\u0085\u2028\u202eok\u2066")).toBe("CI[31mok");
  });
  it("keeps ordinary text, including non-Latin letters and emoji", () => {
    expect(stripControlChars("Bau-Status ✅ 日本")).toBe("Bau-Status ✅ 日本");
  });
  it("detects them (repeatedly, no regex state leaks)", () => {
    expect(hasControlChars("a\nb")).toBe(true);
    expect(hasControlChars("a\nb")).toBe(true);
    expect(hasControlChars("ab")).toBe(false);
  });
});
