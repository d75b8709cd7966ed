/**
 * `gateway plugins list`: what a plugin's manifest says reaches the operator's terminal, so it
 * goes through the terminal-safety rule (SPEC §9) in the table and in `--json` alike.
 */
import fs from "node:fs";
import path from "node:path";
import { main } from "../../../src/gateway/cli/main";
import { manifestOf, tmpDir, writePlugin } from "../plugins/plugin-fixtures";

async function run(cwd: string, ...args: string[]): Promise<{ code: number; err: string[]; out: string[] }> {
  const err: string[] = [];
  const out: string[] = [];
  const code = await main(["node", "gateway", ...args], { err: (l) => err.push(l), out: (l) => out.push(l), env: {}, cwd });
  return { code, err, out };
}

describe("gateway plugins list", () => {
  const dir = tmpDir("gw-plugins-list-");
  const name = "Evil \u009b2J\u202egnp.exe";
  writePlugin(dir, "evil", manifestOf("evil", { name }));
  const configPath = path.join(dir, "gateway.config.json");
  fs.writeFileSync(configPath, JSON.stringify({ plugins: { paths: ["evil"] } }));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("--json wrote a plugin's C1 controls and bidi overrides raw to the terminal (JSON leaves them unescaped); now as \\u escapes of the same value", async () => {
    const r = await run(dir, "plugins", "list", "--json", "--config", configPath);
    expect(r.code).toBe(0);
    const text = r.out.join("\n");
    expect(text).not.toMatch(/[\u0080-\u009f\u202e]/);
    expect(text).toContain("\\u009b2J\\u202egnp.exe");
    const rows = JSON.parse(text) as Array<{ id: string; name: string }>;
    expect(rows.find((row) => row.id === "evil")?.name).toBe(name);
  });
});
