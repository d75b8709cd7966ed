import { resolveRequestId } from "../../src/intake/request-id";

describe("resolveRequestId", () => {
  it("keeps a short, plain incoming id", () => {
    expect(resolveRequestId("abc-123_x.y:z", () => "new")).toBe("abc-123_x.y:z");
  });
  it.each([undefined, "", "a b", "x".repeat(129), "<script>", ["a", "b"]])("replaces %j", (incoming) => {
    expect(resolveRequestId(incoming as string | undefined, () => "new")).toBe("new");
  });
  it("generates uuids by default", () => {
    expect(resolveRequestId(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
