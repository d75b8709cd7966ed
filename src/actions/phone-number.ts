/**
 * Recipient rules for phone-number channels (SPEC §4.4): `to` must be an E.164
 * number once spaces, dashes, dots and brackets are removed.
 */

/** Channels whose recipients are phone numbers. */
export const PHONE_CHANNELS: readonly string[] = ["phone_chat", "privacy_chat"];

/** `+`, a first digit 1–9, then 6 to 14 more digits (7–15 digits in all). */
const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * The E.164 form of `raw`, or undefined when it is not a phone number.
 *
 * @example normalizePhoneNumber("+49 (30) 123-456.78") // "+493012345678"
 */
export function normalizePhoneNumber(raw: string): string | undefined {
  const compact = raw.replace(/[\s\-.()[\]]/g, "");
  return E164.test(compact) ? compact : undefined;
}
