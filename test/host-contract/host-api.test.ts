/**
 * The host contract's version (docs/host-contract.md, "Contract version"): a member added
 * raises the minor version. Regression: `PluginModule.configProblems` and
 * `runtime.models.policy()` were added after 1.3.0 was released while the code and the docs
 * still said 1.3.0, so a host could not tell a 1.3 host from one that calls them; and
 * docs/gateway.md once said 1.2.0 after the contract had become 1.3.0.
 */
import fs from "node:fs";
import path from "node:path";
import semver from "semver";
import { HOST_API_VERSION } from "../../src/host-contract/host-api";

const doc = (name: string) => fs.readFileSync(path.join(__dirname, "../../docs", name), "utf8");

describe("HOST_API_VERSION", () => {
  it("is 1.4 or later: configProblems and models.policy() were added after 1.3.0 (regression: both still said 1.3.0)", () => {
    expect(semver.gte(HOST_API_VERSION, "1.4.0")).toBe(true);
  });

  it("is 2.0 or later: the route's handler became a node-level handler (a breaking change raises the major version)", () => {
    expect(semver.major(HOST_API_VERSION)).toBeGreaterThanOrEqual(2);
  });

  it("is the version docs/host-contract.md and docs/gateway.md state", () => {
    expect(doc("host-contract.md")).toContain(`\`HOST_API_VERSION = "${HOST_API_VERSION}"\``);
    expect(doc("gateway.md")).toContain(`\`HOST_API_VERSION\`, now \`${HOST_API_VERSION}\``);
  });

  it("is satisfied by the range the plugin's manifests declare", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "../../plugin.json"), "utf8")) as { hostApi: string };
    expect(semver.satisfies(HOST_API_VERSION, manifest.hostApi)).toBe(true);
  });
});
