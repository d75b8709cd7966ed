/**
 * The `gateway` CLI's own errors (docs/gateway.md, "CLI"): one line on stderr,
 * `gateway: …`, control characters escaped — also for a mistyped command line,
 * which commander reports.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { main } from "../../../src/gateway/cli/main";

async function run(...args: string[]): Promise<{ code: number; err: string[]; out: string[] }> {
  const err: string[] = [];
  const out: string[] = [];
  const code = await main(["node", "gateway", ...args], { err: (l) => err.push(l), out: (l) => out.push(l), env: {}, cwd: __dirname });
  return { code, err, out };
}

describe("gateway CLI command-line errors", () => {
  it("an unknown option is reported as gateway: …, with the usage hint, and exit 1 (was: commander's bare error: …)", async () => {
    const r = await run("start", "--bogus");
    expect(r).toEqual({ code: 1, out: [], err: ["gateway: unknown option '--bogus'", "(run with --help for usage)"] });
  });

  it("a control character in a mistyped argument is escaped, never written to the terminal raw", async () => {
    const r = await run("start", "--x\u001b[31mq");
    expect(r.code).toBe(1);
    expect(r.err.join("\n")).not.toContain("\u001b");
    expect(r.err[0]).toMatch(/^gateway: unknown option '--x.+\[31mq'$/);
  });
});

describe("plugin command help with a config the plugins cannot be activated with", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-help-"));
  const unreadable = path.join(dir, "unreadable.json");
  const invalid = path.join(dir, "invalid.json");
  fs.writeFileSync(unreadable, '{"hooks": {');
  fs.writeFileSync(invalid, JSON.stringify({ hooks: { enabled: true, tokn: "x" } }));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each([
    ["webhooks --help, a config that is not JSON", ["webhooks", "--help", "--config", unreadable], "Usage: gateway webhooks [options] [command]"],
    ["webhooks --help, an invalid hooks section", ["webhooks", "--help", "--config", invalid], "Usage: gateway webhooks [options] [command]"],
    ["help webhooks", ["help", "webhooks", "--config", invalid], "Usage: gateway webhooks [options] [command]"],
    ["webhooks deliveries -h", ["webhooks", "deliveries", "-h", "--config", invalid], "Usage: gateway webhooks deliveries [options] [command]"],
  ])("%s printed the config's problems and exited 1 instead of the help (now: the help by name, exit 0, the problems on stderr)", async (_, args, usage) => {
    const r = await run(...args);
    expect(r.code).toBe(0);
    expect(r.out.join("\n")).toContain(usage);
    expect(r.err.length).toBeGreaterThan(0);
    for (const line of r.err) expect(line).toMatch(/^gateway: cannot load plugin commands: invalid config /);
  });

  it("the group's help names its commands from the manifest", async () => {
    const r = await run("webhooks", "--help", "--config", invalid);
    for (const name of ["test", "mail", "deliveries", "runs"]) expect(r.out.join("\n")).toMatch(new RegExp(`^  ${name}\\b`, "m"));
  });

  it("the command itself, without --help, still stops with the problems and exit 1", async () => {
    const r = await run("webhooks", "deliveries", "list", "--config", invalid);
    expect(r.code).toBe(1);
    expect(r.out).toEqual([]);
  });

  it("a plugin command with a wrong plugin section printed each problem twice (now once, as gateway start does)", async () => {
    const r = await run("webhooks", "deliveries", "list", "--config", invalid);
    expect(r.err).toEqual([
      `gateway: cannot load plugin commands: invalid config ${invalid}: hooks.token is required when hooks.enabled is true`,
      `gateway: cannot load plugin commands: invalid config ${invalid}: hooks.tokn is not a known key (did you mean hooks.token?)`,
    ]);
  });
});
