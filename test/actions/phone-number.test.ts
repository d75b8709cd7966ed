import { normalizePhoneNumber } from "../../src/actions/phone-number";

describe("normalizePhoneNumber", () => {
  it.each([
    ["+4915123456789", "+4915123456789"],
    ["+49 151 2345 6789", "+4915123456789"],
    ["+1 (555) 123-4567", "+15551234567"],
    ["+33.6.12.34.56.78", "+33612345678"],
    ["+44 [20] 7946 0958", "+442079460958"],
    ["+1234567", "+1234567"],
    ["+123456789012345", "+123456789012345"],
  ])("%s → %s", (raw, expected) => {
    expect(normalizePhoneNumber(raw)).toBe(expected);
  });

  it.each(["not a phone", "4915123456789", "+0151234567", "+123456", "+1234567890123456", "+49 151 abc", "", "+"])("%j is not E.164", (raw) => {
    expect(normalizePhoneNumber(raw)).toBeUndefined();
  });
});
