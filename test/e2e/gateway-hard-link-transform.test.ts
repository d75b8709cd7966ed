/**
 * Regression: a transform that is a hard link to a file outside
 * hooks.transformsDir loaded (only symbolic links were checked). The real
 * gateway now refuses to start, naming the key.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeGatewayDir, runGatewayCli } from "../helpers/gateway-process";
import { HOOK_TOKEN } from "./gateway-setup";

describe("gateway e2e: a hard-linked transform", () => {
  let dir: string;
  let outside: string;
  beforeEach(() => {
    dir = makeGatewayDir("gw-hardlink-");
    outside = fs.mkdtempSync(path.join(os.tmpdir(), "gw-outside-"));
    fs.writeFileSync(path.join(outside, "evil.js"), 'module.exports = () => ({ text: "from outside" });\n');
    fs.mkdirSync(path.join(dir, "hooks", "transforms"), { recursive: true });
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  const writeConfig = (module: string): string => {
    const file = path.join(dir, "gateway.config.json");
    const mapping = { id: "linked", match: { path: "linked" }, action: "wake", textTemplate: "t", transform: { module } };
    fs.writeFileSync(
      file,
      JSON.stringify({ hooks: { enabled: true, token: HOOK_TOKEN, mappings: [mapping] }, agents: { defaults: { heartbeat: { every: "off" } } } }),
    );
    return file;
  };

  it("is refused at start with one line naming hooks.mappings[0].transform.module", async () => {
    fs.linkSync(path.join(outside, "evil.js"), path.join(dir, "hooks", "transforms", "linked.js"));
    const file = writeConfig("linked.js");
    const r = await runGatewayCli(["start", "--config", file, "--port", "0"]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("listening:");
    expect(r.stderr.trim()).toBe(
      `gateway: invalid config ${file}: hooks.mappings[0].transform.module must be a file with a single link inside hooks.transformsDir; "linked.js" has 2 hard links, so it may be a file from outside the directory (copy it instead of linking it)`,
    );
  });
});
