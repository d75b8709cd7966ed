/**
 * Regression: `gateway webhooks deliveries replay ..` sent `POST {path}/deliveries/../replay`,
 * which fetch resolves (as every WHATWG URL does) to `POST {path}/replay`: an empty POST,
 * with the hook token, to the hook `replay` — a mapping without `match.path` would have run
 * it. `.` and `..` (and an empty id) are path steps, not ids: the commands that take an id
 * (`deliveries show|replay`, `runs show`, `webhooks test --delivery`) now refuse them before
 * any request, exit 1.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Command, CommanderError } from "commander";
import { registerLedgerCommands } from "../../src/cli/ledger-commands";
import { registerDryRunCommand } from "../../src/cli/webhooks-test";
import { createMappingEngine } from "../../src/mappings/engine";
import { createFakeHost } from "../helpers/fake-host";
import { captureLogger, makeConfig } from "../mappings/helpers";

describe("an id that is a path step (., .., nothing)", () => {
  let server: http.Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.setHeader("content-type", "application/json");
      res.end('{"ok":true,"mode":"now"}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => void (seen.length = 0));

  async function run(args: string[]): Promise<{ code: number; stderr: string }> {
    const host = createFakeHost();
    let stderr = "";
    const program = new Command("gateway").exitOverride().configureOutput({ writeOut: () => undefined, writeErr: (s) => void (stderr += s) });
    const config = { ...makeConfig(), tokenSource: "test-hook-token-0123456789abcdef" };
    const webhooks = program.command("webhooks");
    registerLedgerCommands(webhooks, { api: host.api, config });
    const logs = captureLogger();
    registerDryRunCommand(webhooks, {
      api: host.api,
      config,
      mappings: createMappingEngine({ config, presets: [], logger: logs }),
      logs: { forModule: () => logs },
    });
    let code = 0;
    try {
      await program.parseAsync(["webhooks", ...args, "--url", base], { from: "user" });
    } catch (e) {
      if (!(e instanceof CommanderError)) throw e;
      code = e.exitCode;
    }
    return { code, stderr };
  }

  it.each([
    [["deliveries", "replay", ".."]],
    [["deliveries", "replay", "."]],
    [["deliveries", "replay", ""]],
    [["deliveries", "show", ".."]],
    [["runs", "show", ".."]],
    [["test", "crm", "--delivery", ".."]],
  ])("webhooks %j sends nothing and exits 1 naming the id", async (args) => {
    const { code, stderr } = await run(args);
    expect(seen).toEqual([]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `webhooks${args[0] === "test" ? " test" : ""}: "${args[args.length - 1]}" is not an id: a delivery or run id is one path segment (such as 019a7c3e-5f1b-7c2d-9e4f-0123456789ab), not . or .. or nothing; nothing was sent\n`,
    );
  });

  it("a real id still goes as one path segment", async () => {
    const { code } = await run(["deliveries", "replay", "019a7c3e-5f1b-7c2d-9e4f-0123456789ab"]);
    expect(code).toBe(0);
    expect(seen).toEqual(["POST /hooks/deliveries/019a7c3e-5f1b-7c2d-9e4f-0123456789ab/replay"]);
  });
});
