/**
 * Freshness of timestamped signatures: a Unix-seconds timestamp must lie within
 * `toleranceSeconds` of now, in the past or the future.
 */
import { expired, invalid, type VerifyFailure } from "./types";

/** A Unix time in seconds as senders write it. */
export const TS_DIGITS = /^\d{1,12}$/;

/** `undefined` when `value` is a fresh timestamp; else the failure naming `header`. */
export function checkTimestamp(header: string, value: string | undefined, nowMs: number, toleranceSeconds: number): VerifyFailure | undefined {
  if (value === undefined || value === "") return invalid(header, `${header} is missing`);
  if (!TS_DIGITS.test(value)) return invalid(header, `${header} must be a Unix time in seconds`);
  const skew = Math.floor(nowMs / 1000) - Number(value);
  if (skew > toleranceSeconds) return expired(header, `${header} is ${skew} s old; signatures older than ${toleranceSeconds} s are refused`);
  if (-skew > toleranceSeconds) return expired(header, `${header} is ${-skew} s in the future; more than ${toleranceSeconds} s ahead is refused`);
  return undefined;
}
