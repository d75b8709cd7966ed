/** Delivery ids are UUIDv7: valid UUIDs whose order follows the time they were made (so the ledger's id index grows at its end). */
import { deliveryId } from "../../../src/intake/ledger/delivery-id";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("deliveryId", () => {
  it("is a version 7, variant 1 UUID carrying the time in its first 48 bits", () => {
    const t = Date.parse("2026-11-22T18:00:00Z");
    const id = deliveryId(t);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(t);
  });

  it("ids of later times sort after earlier ones; ids of the same millisecond differ", () => {
    const t = Date.parse("2026-11-22T18:00:00Z");
    const ids = [t, t + 1, t + 1000, t + 86_400_000].map(deliveryId);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 1000 }, () => deliveryId(t))).size).toBe(1000);
  });
});
