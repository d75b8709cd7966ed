/**
 * `openclaw inbound-webhooks …`: the plugin's commands as OpenClaw's CLI runs them
 * (the registrar the adapter hands to `api.registerCli`, on a commander program like
 * OpenClaw's). Regressions:
 * - `mail setup` inside OpenClaw wrote a `gateway.config.json` into the working
 *   directory (a file OpenClaw never reads) and exited 0, then refused; it writes the
 *   section through OpenClaw's config writer (SPEC §15 "First-class").
 * - the hints of these commands named the embedded gateway's commands and keys
 *   (`gateway start`, `hooks.enabled`) and the start notice named OpenClaw's own
 *   `openclaw webhooks` (its Gmail helpers) instead of `openclaw inbound-webhooks`.
 * - their help named the embedded gateway's keys, command and path (`hooks.path`,
 *   `gateway webhooks mail run`, `POST /hooks/github`).
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Command, CommanderError } from "commander";
import plugin from "../../../src/hosts/openclaw/plugin-entry";
import type { OpenClawCliContext, OpenClawPluginApi, OpenClawService } from "../../../src/hosts/openclaw/openclaw-api";
import { tempDir } from "../../helpers/temp-dir";

const TOKEN = "our-hook-token-0123456789";

interface Cli {
  /** `reason`: the thrown error's message, which OpenClaw prints again as "Reason: …". */
  run(args: string[]): Promise<{ code: number; stdout: string; stderr: string; reason?: string }>;
  services: OpenClawService[];
  logs: string[];
  /** OpenClaw's source config as its config writer changes it, and the afterWrite of each write. */
  source: Record<string, unknown>;
  writes: unknown[];
}

/** Registers the plugin against a stand-in for OpenClaw's API and returns its CLI, as `openclaw` runs it. */
function openClawCli(stateDir: string, pluginConfig: Record<string, unknown>): Cli {
  const registrars: Array<(ctx: OpenClawCliContext) => void | Promise<void>> = [];
  const services: OpenClawService[] = [];
  const logs: string[] = [];
  const writes: unknown[] = [];
  const config = { gateway: { port: 9 }, plugins: { entries: { "inbound-webhooks": { enabled: true, config: pluginConfig } } } };
  const source = structuredClone(config) as Record<string, unknown>;
  const api: OpenClawPluginApi = {
    id: "inbound-webhooks",
    registrationMode: "full",
    config,
    pluginConfig,
    logger: { info: (m) => void logs.push(m), warn: (m) => void logs.push(m), error: (m) => void logs.push(m) },
    runtime: {
      version: "2026.9.6",
      state: { resolveStateDir: () => stateDir },
      system: { enqueueSystemEvent: () => true, requestHeartbeat: () => undefined },
      config: {
        current: () => source,
        mutateConfigFile: async ({ afterWrite, mutate }) => {
          mutate(source);
          writes.push(afterWrite);
        },
      },
      subagent: {
        run: async () => ({ runId: "oc-1" }),
        waitForRun: async () => ({ status: "ok", endedAt: 1 }),
        getSessionMessages: async () => ({ messages: [] }),
      },
    },
    registerHttpRoute: () => undefined,
    registerService: (s) => void services.push(s),
    registerCli: (r) => void registrars.push(r),
  };
  plugin.register(api);
  return {
    services,
    logs,
    source,
    writes,
    async run(args) {
      let stdout = "";
      let stderr = "";
      const program = new Command("openclaw").exitOverride().configureOutput({ writeOut: (s) => void (stdout += s), writeErr: (s) => void (stderr += s) });
      for (const r of registrars) await r({ program } as OpenClawCliContext);
      try {
        await program.parseAsync(["node", "openclaw", ...args]);
        return { code: 0, stdout, stderr };
      } catch (e) {
        if (!(e instanceof CommanderError)) throw e;
        return { code: e.exitCode, stdout, stderr, reason: e.message };
      }
    },
  };
}

describe("openclaw inbound-webhooks …", () => {
  let state: ReturnType<typeof tempDir>;
  let cwd: ReturnType<typeof tempDir>;
  const home = process.cwd();
  beforeEach(() => {
    state = tempDir("iw-openclaw-cli-");
    cwd = tempDir("iw-openclaw-cwd-");
    process.chdir(cwd.dir);
  });
  afterEach(() => {
    process.chdir(home);
    state.remove();
    cwd.remove();
  });

  it("mail setup inside OpenClaw refused (it could only write the embedded gateway's file): it writes the section through OpenClaw's config writer, every other key kept", async () => {
    const cli = openClawCli(state.dir, { token: TOKEN, presets: ["github"], github: { secret: "github-secret-0123456789" } });
    const args = [
      "inbound-webhooks",
      "mail",
      "setup",
      "--host",
      "imap.example.com",
      "--user",
      "me@example.com",
      "--password-env",
      "IMAP_PASSWORD",
      "--no-input",
    ];
    const r = await cli.run(args);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(fs.existsSync(path.join(cwd.dir, "gateway.config.json"))).toBe(false);
    expect(cli.writes).toEqual([{ mode: "auto" }]);
    const entry = (cli.source.plugins as any).entries["inbound-webhooks"];
    expect(entry.config).toEqual({
      token: TOKEN,
      presets: ["github", "mail"],
      github: { secret: "github-secret-0123456789" },
      enabled: true,
      mail: {
        imap: { host: "imap.example.com", port: 993, tls: "tls", user: "me@example.com", password: { env: "IMAP_PASSWORD" }, mailbox: "INBOX" },
        hookUrl: "http://127.0.0.1:9/webhooks/mail",
        includeBody: false,
        maxBytes: 8192,
      },
    });
    // OpenClaw's own keys and the entry's other keys are OpenClaw's writer's to keep: the mutation touches the section only.
    expect(cli.source.gateway).toEqual({ port: 9 });
    expect(entry.enabled).toBe(true);
    expect(r.stdout).toContain("  - plugins.entries.inbound-webhooks.config.mail written");
    expect(r.stdout).toContain('  - "mail" added to plugins.entries.inbound-webhooks.config.presets');
    expect(r.stdout).toContain("  openclaw gateway restart    # restart it if it is already running");
    expect(r.stdout).toContain("  openclaw inbound-webhooks mail run    # in another terminal");
    expect(r.stdout).not.toMatch(/(^|[^\w.-])hooks\./m);
    const again = await cli.run([...args, "--json"]);
    expect(JSON.parse(again.stdout)).toMatchObject({
      ok: true,
      written: false,
      mail: "unchanged",
      configPath: expect.stringContaining("plugins.entries.inbound-webhooks.config"),
    });
    expect(cli.writes).toHaveLength(1);
  });

  it("mail setup inside OpenClaw refuses a result the plugin would refuse, and writes nothing", async () => {
    const cli = openClawCli(state.dir, { token: TOKEN });
    const r = await cli.run(["inbound-webhooks", "mail", "setup", "--host", "imap.example.com", "--user", "u", "--password", "plain", "--no-input"]);
    expect(r.code).toBe(1);
    expect(cli.writes).toEqual([]);
  });

  it("a gateway that does not answer: the hint named `gateway start` (the embedded gateway's command); it names OpenClaw's", async () => {
    const cli = openClawCli(state.dir, { token: TOKEN });
    const r = await cli.run(["inbound-webhooks", "deliveries", "list"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("http://127.0.0.1:9/webhooks");
    for (const text of [r.stderr, r.reason]) {
      expect(text).not.toContain("`gateway start`");
      expect(text).toContain("`openclaw gateway run`");
      expect(text).toMatch(/^inbound-webhooks: the gateway is not reachable at/);
    }
  });

  it("hooks switched off: the sentence named hooks.enabled; it names OpenClaw's key", async () => {
    const cli = openClawCli(state.dir, { token: TOKEN, enabled: false });
    const r = await cli.run(["inbound-webhooks", "runs", "list"]);
    expect(r.code).toBe(1);
    for (const text of [r.stderr, r.reason]) {
      expect(text).not.toMatch(/(^|[^.])hooks\.enabled/);
      expect(text).toContain("plugins.entries.inbound-webhooks.config.enabled is not true");
    }
  });

  it("`test github` named hooks.presets \"github\" and hooks.github (OpenClaw's own hooks section); it names the plugin's keys", async () => {
    const payload = path.join(cwd.dir, "push.json");
    fs.writeFileSync(payload, JSON.stringify({ ref: "refs/heads/main", repository: { full_name: "o/r" }, commits: [], pusher: { name: "ada" } }));
    const cli = openClawCli(state.dir, { token: TOKEN, presets: ["github"], github: { secret: "github-secret-0123456789" } });
    const text = await cli.run(["inbound-webhooks", "test", "github", "--payload", payload, "--header", "x-github-event:push"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Mapping:  github (plugins.entries.inbound-webhooks.config.presets "github" (github))');
    expect(text.stdout).toContain("Signature: github (plugins.entries.inbound-webhooks.config.github) — not checked in a dry run");
    expect(text.stdout).not.toMatch(/(^|[^\w.-])hooks\./m);
    const json = await cli.run(["inbound-webhooks", "test", "github", "--payload", payload, "--header", "x-github-event:push", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      mapping: { key: 'plugins.entries.inbound-webhooks.config.presets "github" (github)' },
      signature: { key: "plugins.entries.inbound-webhooks.config.github" },
    });
  });

  it("the start notice named `openclaw webhooks` (OpenClaw's Gmail helpers); it names `openclaw inbound-webhooks`", async () => {
    const cli = openClawCli(state.dir, { token: TOKEN });
    const ctx = { stateDir: state.dir, logger: { info: () => undefined, warn: () => undefined, error: () => undefined } };
    await cli.services[0]!.start(ctx);
    try {
      const notice = cli.logs.find((l) => l.includes("not available here"));
      expect(notice).toBeDefined();
      expect(notice).not.toContain("openclaw webhooks");
      expect(notice).not.toContain("mail setup");
    } finally {
      await cli.services[0]!.stop?.(ctx);
    }
  });

  it("the help named the embedded gateway's keys, command and path (hooks.path, `gateway webhooks mail run`, /hooks/github); it names OpenClaw's", async () => {
    const cli = openClawCli(state.dir, { token: TOKEN });
    const help = async (...args: string[]): Promise<string> => {
      const r = await cli.run(["inbound-webhooks", ...args, "--help"]);
      expect(r.code).toBe(0);
      // commander wraps help lines at the terminal's width.
      return r.stdout.replace(/\s+/g, " ");
    };
    const test = await help("test");
    expect(test).toContain("the sub-path after plugins.entries.inbound-webhooks.config.path, e.g. github for POST /webhooks/github");
    const setup = await help("mail", "setup");
    expect(setup).toContain("Write plugins.entries.inbound-webhooks.config.mail (IMAP settings, hook URL) into the config");
    // --config is the embedded gateway's: inside OpenClaw the config is OpenClaw's own.
    expect(setup).not.toContain("--config");
    const withConfig = await cli.run(["inbound-webhooks", "mail", "setup", "--config", "x.json", "--no-input"]);
    expect({ code: withConfig.code, stderr: withConfig.stderr.trim() }).toEqual({
      code: 1,
      stderr:
        "inbound-webhooks: --config names an embedded gateway's config file; inside OpenClaw the config is OpenClaw's own (OPENCLAW_CONFIG_PATH, `openclaw config file`)",
    });
    const mail = await help("mail");
    expect(mail).toContain("Feed new mail from an IMAP mailbox to the mail preset");
    const texts = [test, setup, mail, await help("deliveries", "list"), await help("runs"), await help("mail", "run")];
    for (const text of texts) {
      expect(text).not.toMatch(/(^|[^.\w])hooks\.[a-z]/);
      expect(text).not.toContain("`gateway webhooks");
      expect(text).not.toContain(" /hooks/");
    }
  });
  it("deliveries replay with a filter (bulk) runs the same code inside OpenClaw: the preview, then the confirmation with its confirm value", async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.setHeader("content-type", "application/json");
      const confirm = new URL(req.url!, "http://x").searchParams.get("confirm");
      const filter = { hook: "github", status: "5xx" };
      res.end(
        JSON.stringify(
          confirm === null
            ? {
                ok: true,
                preview: { filter, count: 1, notReplayable: 0, max: 1000, until: "2026-12-02T05:00:00.000Z", ids: ["d1"], confirm: "c0ffee", expiresAt: "x" },
              }
            : { ok: true, replay: { filter, count: 1, failed: 0, repeated: false, replayed: [{ replayOf: "d1", deliveryId: "d2", status: 202 }] } },
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
      const cli = openClawCli(state.dir, { token: TOKEN });
      const r = await cli.run(["inbound-webhooks", "deliveries", "replay", "--hook", "github", "--status", "5xx", "--yes", "--url", url]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      expect(seen).toEqual([
        "POST /webhooks/deliveries/replay?hook=github&status=5xx",
        "POST /webhooks/deliveries/replay?hook=github&status=5xx&confirm=c0ffee",
      ]);
      expect(r.stdout).toContain("Replayed 1 delivery: 1 × 202\nd1 → d2  202\n");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
