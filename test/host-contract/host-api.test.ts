/**
 * The contract version the docs name is the one the host reports (docs/gateway.md said 1.2.0
 * after the contract had become 1.3.0).
 */
import fs from "node:fs";
import path from "node:path";
import { HOST_API_VERSION } from "../../src/host-contract/host-api";

const DOCS = path.join(__dirname, "..", "..", "docs");

describe("HOST_API_VERSION in the docs", () => {
  it.each([
    ["host-contract.md", /HOST_API_VERSION = "([^"]+)"/],
    ["gateway.md", /`HOST_API_VERSION`, now `([^`]+)`/],
  ])("docs/%s names the current contract version", (file, pattern) => {
    const found = fs.readFileSync(path.join(DOCS, file), "utf8").match(pattern);
    expect(found?.[1]).toBe(HOST_API_VERSION);
  });
});
