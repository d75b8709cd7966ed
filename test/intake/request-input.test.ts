import { flatHeaders, flatQuery } from "../../src/intake/request-input";

describe("request input for the mapping engine", () => {
  it("flattens repeated headers and uses a null prototype", () => {
    const h = flatHeaders({ "x-a": "1", "set-cookie": ["a=1", "b=2"], "x-none": undefined });
    expect(Object.getPrototypeOf(h)).toBeNull();
    expect({ ...h }).toEqual({ "x-a": "1", "set-cookie": "a=1, b=2" });
  });

  it("decodes query parameters, first value wins", () => {
    const q = flatQuery("/hooks/x?a=1&b=two%20words&a=2&__proto__=p");
    expect(Object.getPrototypeOf(q)).toBeNull();
    expect([q.a, q.b, Object.getOwnPropertyDescriptor(q, "__proto__")?.value]).toEqual(["1", "two words", "p"]);
    expect(Object.keys(flatQuery("/hooks/x"))).toEqual([]);
  });
});
