/** The highest UID of a list, and UIDNEXT derived from it when the server does not report UIDNEXT. */
import { highestUid, uidNextAfter } from "../../../src/mail/watcher/highest-uid";

/** Ascending UIDs 1..n with a few gaps, like a large, long-lived mailbox. */
const manyUids = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1 + Math.floor(i / 1000));

test("a mailbox of 500 000 UIDs without UIDNEXT gets its UIDNEXT instead of a call-stack RangeError", () => {
  const uids = manyUids(500_000);
  expect(uidNextAfter(uids)).toBe(uids[uids.length - 1]! + 1);
});

test("a pending batch of 500 000 UIDs yields its highest UID instead of a call-stack RangeError", () => {
  const uids = manyUids(500_000).reverse();
  expect(highestUid(uids)).toBe(uids[0]);
});

test("the highest UID does not depend on the order; an empty list has none and an empty mailbox's UIDNEXT is 1", () => {
  expect(highestUid([3, 9, 4])).toBe(9);
  expect(highestUid([9])).toBe(9);
  expect(highestUid([])).toBeUndefined();
  expect(uidNextAfter([])).toBe(1);
  expect(uidNextAfter([7, 2])).toBe(8);
});
