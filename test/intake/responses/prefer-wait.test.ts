/** preferredWaitSeconds: the `wait` preference of RFC 7240 `Prefer` headers (SPEC §12). */
import { preferredWaitSeconds } from "../../../src/intake/responses/prefer-wait";

describe("preferredWaitSeconds", () => {
  it.each<[string, string | string[] | undefined, number | undefined]>([
    ["no header", undefined, undefined],
    ["a whole number", "wait=20", 20],
    ["zero (no wait: the gate treats 0 as not waiting)", "wait=0", 0],
    ["case-insensitive name and spaces", "  WAIT = 7 ", 7],
    ["a quoted value", 'wait="5"', 5],
    ["with a parameter", "wait=3; foo=bar", 3],
    ["after another preference", "respond-async, wait=4", 4],
    ["several wait preferences: the first counts", "wait=2, wait=600", 2],
    ["the first wait across several headers counts", ["respond-async", "wait=9", "wait=1"], 9],
    ["a huge value is read (the gate clamps it)", "wait=999999999", 999999999],
  ])("%s", (_what, header, expected) => {
    expect(preferredWaitSeconds(header)).toBe(expected);
  });

  it.each<[string, string]>([
    ["negative", "wait=-1"],
    ["a fraction", "wait=1.5"],
    ["not a number", "wait=soon"],
    ["empty", "wait="],
    ["no value", "wait"],
    ["more than nine digits (beyond any cap, and not a safe integer for long)", `wait=${"9".repeat(400)}`],
    ["an exponent", "wait=1e3"],
    ["a sign", "wait=+5"],
    ["hex", "wait=0x10"],
    ["no wait preference at all", "respond-async, handling=lenient"],
  ])("ignored per RFC 7240 when malformed: %s", (_what, header) => {
    expect(preferredWaitSeconds(header)).toBeUndefined();
  });

  it("a malformed first wait hides a later valid one (the first counts, even when it is ignored)", () => {
    expect(preferredWaitSeconds("wait=soon, wait=5")).toBeUndefined();
  });

  it("reads a header of thousands of preferences in one pass", () => {
    expect(preferredWaitSeconds(`${"x=1,".repeat(20_000)}wait=3`)).toBe(3);
  });
});
