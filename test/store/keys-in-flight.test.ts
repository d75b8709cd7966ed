import { isKeyInFlight, keysInFlight, type KeyInFlight } from "../../src/store/keys-in-flight";

describe("keysInFlight", () => {
  it("is one map per database file for every caller in the process, and a key counts while its holder is open", () => {
    const holder = { isOpen: true };
    keysInFlight<KeyInFlight>("/state/a.sqlite").set('["agent","k"]', { holder });
    expect(keysInFlight("/state/a.sqlite").has('["agent","k"]')).toBe(true);
    expect(isKeyInFlight("/state/a.sqlite", '["agent","k"]')).toBe(true);
    expect(isKeyInFlight("/state/b.sqlite", '["agent","k"]')).toBe(false);
    holder.isOpen = false;
    expect(isKeyInFlight("/state/a.sqlite", '["agent","k"]')).toBe(false);
    keysInFlight("/state/a.sqlite").delete('["agent","k"]');
  });
});
