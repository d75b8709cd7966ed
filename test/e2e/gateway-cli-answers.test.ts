/**
 * The CLI as a new user met it (issue 23): `gateway --version` was an unknown option;
 * `webhooks deliveries replay <id of a 401>` printed the 409 and exited 0;
 * `deliveries show nope` added "(run with --help for usage)" to a not-found. On the real
 * gateway process and the real CLI: the version, exit 1 for an error answer and for an
 * unknown id, and no usage hint where the command line was right.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT, runGatewayCli, type GatewayProcess } from "../helpers/gateway-process";
import { freePort } from "../helpers/free-port";
import { until } from "../helpers/until";
import { gatewayPerTest, hooksConfig } from "./gateway-setup";

const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;

it.each([["--version"], ["-V"]])("gateway %s prints the package's version and exits 0", async (flag) => {
  const r = await runGatewayCli([flag]);
  expect(r).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
});

it("a mistyped command line still gets the usage hint", async () => {
  const r = await runGatewayCli(["start", "--port"]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("(run with --help for usage)");
});

it("gateway help <a command that does not exist> says which word is unknown, as gateway <word> does (was: only the usage, on stderr)", async () => {
  const r = await runGatewayCli(["help", "statr"]);
  expect(r).toEqual({ code: 1, stdout: "", stderr: "gateway: unknown command 'statr'\n(run with --help for usage)\n" });
});

// A command group without its subcommand is a mistyped command line: the usage on stderr and exit 1
// (was: exit 0, so `gateway webhooks deliveries` in a script "succeeded" with nothing on stdout).
it.each([[[]], [["plugins"]], [["webhooks"]], [["webhooks", "deliveries"]], [["webhooks", "runs"]], [["webhooks", "mail"]]])(
  "gateway %j without a subcommand prints the usage on stderr and exits 1 (was: exit 0)",
  async (args) => {
    const r = await runGatewayCli(args);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Usage: gateway/);
  },
);

it.each([[["help", "webhooks"]], [["webhooks", "--help"]], [["webhooks", "deliveries", "help", "list"]]])(
  "gateway %j (asked for help) prints the usage on stdout and exits 0",
  async (args) => {
    const r = await runGatewayCli(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: gateway webhooks/);
  },
);

describe("gateway e2e: CLI answers", () => {
  const gateway = gatewayPerTest();
  let gw: GatewayProcess;

  beforeEach(async () => {
    const port = await freePort();
    gw = await gateway.start({ port, config: hooksConfig({ gateway: { port } }) });
  });

  it("the replay of a refused delivery (401 → 409) exits 1 with the answer on stdout and the reason on stderr (was: exit 0)", async () => {
    const refused = await fetch(`${gw.baseUrl}/hooks/wake`, {
      method: "POST",
      headers: { authorization: "Bearer wrong-token-0123456789", "content-type": "application/json" },
      body: '{"text":"x"}',
    });
    expect(refused.status).toBe(401);
    let id = "";
    await until(async () => {
      const listed = await runGatewayCli(["webhooks", "deliveries", "list", "--json", "--config", gw.configPath]);
      id = (JSON.parse(listed.stdout) as { deliveries: Array<{ id: string; status: number }> }).deliveries.find((d) => d.status === 401)?.id ?? "";
      return id !== "";
    }, "the 401 to be listed");

    const r = await runGatewayCli(["webhooks", "deliveries", "replay", id, "--config", gw.configPath]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^Replay of ${id}: 409\\n\\{\\n  "ok": false,\\n  "code": "\\w+"`));
    const code = (/"code": "(\w+)"/.exec(r.stdout) ?? [])[1];
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(new RegExp(`^webhooks: the replay of ${id} was answered 409 ${code}: .+`))]);

    const json = await runGatewayCli(["webhooks", "deliveries", "replay", id, "--json", "--config", gw.configPath]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 409, body: { ok: false, code } });
  });

  it("an unknown delivery or run id exits 1 with one line and no usage hint", async () => {
    for (const args of [
      ["deliveries", "show", "nope"],
      ["runs", "show", "nope"],
    ]) {
      const r = await runGatewayCli(["webhooks", ...args, "--config", gw.configPath]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      const lines = r.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^webhooks: http:\/\/127\.0\.0\.1:\d+\/hooks\/\w+\/nope answered 404 \w*not_found: .+/);
      expect(r.stderr).not.toContain("--help");
    }
  });
});

it("a plugin command given its config as -cFILE (the value attached to the short flag) runs with that config (was: the default one, silently)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-cli-c-"));
  fs.writeFileSync(
    path.join(dir, "my.json"),
    JSON.stringify(hooksConfig({ hooks: { mappings: [{ id: "only-in-file", match: { path: "x" }, action: "wake", textTemplate: "hi" }] } })),
  );
  fs.writeFileSync(path.join(dir, "payload.json"), "{}");
  const r = await runGatewayCli(["webhooks", "test", "x", "-cmy.json", "--payload", "payload.json"], { cwd: dir });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Mapping:  only-in-file");
});
