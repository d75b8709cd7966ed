/**
 * Regression (issue 22 item 11), against the real `gateway` process: a verify
 * secret could be one character long (the hook token needs ≥ 16). Now `gateway
 * start` refuses every secret under 16 bytes, naming its key and never its value —
 * a `whsec_` secret by its decoded key, so a long-looking `whsec_` of 8 bytes is
 * refused — and a secret of exactly 16 bytes starts.
 */
import fs from "node:fs";
import path from "node:path";
import { makeGatewayDir, runGatewayCli, startGateway } from "../helpers/gateway-process";

const TOKEN = "0123456789abcdef0123";
const EIGHT_BYTE_WHSEC = `whsec_${Buffer.from("8 bytes!").toString("base64")}`;

function writeConfig(mappings: unknown[]): string {
  const file = path.join(makeGatewayDir("gw-short-secret-"), "gateway.config.json");
  fs.writeFileSync(file, JSON.stringify({ hooks: { enabled: true, token: TOKEN, mappings } }));
  return file;
}

describe("gateway e2e: verify secrets shorter than 16 bytes are refused at start", () => {
  it("a one-character secret, a 15-byte secret from the environment and an 8-byte whsec_ key: each named by its key, no value printed", async () => {
    const file = writeConfig([
      { id: "gh", match: { path: "gh" }, messageTemplate: "x", verify: { scheme: "github", secret: "x" } },
      { id: "gl", match: { path: "gl" }, messageTemplate: "x", verify: { scheme: "token-header", header: "x-gitlab-token", secret: { env: "GL_SECRET" } } },
      { id: "sw", match: { path: "sw" }, messageTemplate: "x", verify: { scheme: "standard-webhooks", secret: [EIGHT_BYTE_WHSEC] } },
    ]);
    const r = await runGatewayCli(["start", "--config", file, "--port", "0"], { env: { GL_SECRET: "fifteen-bytes!!" } });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("listening:");
    // The start logs its first steps before the plugin's service reads the secrets; the refusal is the problem lines.
    expect(
      r.stderr
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("gateway: ")),
    ).toEqual([
      `gateway: invalid config ${file}: hooks.mappings[0].verify.secret must be at least 16 bytes long (use a random value, e.g. openssl rand -hex 32)`,
      `gateway: invalid config ${file}: hooks.mappings[1].verify.secret must be at least 16 bytes long (use a random value, e.g. openssl rand -hex 32)`,
      `gateway: invalid config ${file}: hooks.mappings[2].verify.secret[0] must decode to at least 16 bytes (whsec_ followed by the base64 of a random key)`,
    ]);
    expect(r.stderr).not.toContain("fifteen-bytes!!");
    expect(r.stderr).not.toContain(EIGHT_BYTE_WHSEC);
  });

  it("a secret of exactly 16 bytes starts", async () => {
    const gw = await startGateway({
      config: JSON.parse(
        fs.readFileSync(
          writeConfig([{ id: "gh", match: { path: "gh" }, messageTemplate: "x", verify: { scheme: "github", secret: "sixteen-bytes-ok" } }]),
          "utf8",
        ),
      ),
    });
    try {
      const res = await fetch(`${gw.baseUrl}/hooks/gh`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
      expect(res.status).toBe(401);
    } finally {
      await gw.stop();
    }
  });
});
