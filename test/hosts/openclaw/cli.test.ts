/**
 * `openclaw inbound-webhooks …`: the plugin's commands as OpenClaw's CLI runs them
 * (the registrar the adapter hands to `api.registerCli`, on a commander program like
 * OpenClaw's). Regressions:
 * - `mail setup` inside OpenClaw wrote a `gateway.config.json` into the working
 *   directory (a file OpenClaw never reads) and exited 0 — a silent no-op where
 *   SPEC §15 asks for a clear error.
 * - the hints of these commands named the embedded gateway's commands and keys
 *   (`gateway start`, `hooks.enabled`) and the start notice named OpenClaw's own
 *   `openclaw webhooks` (its Gmail helpers) instead of `openclaw inbound-webhooks`.
 * - their help named the embedded gateway's keys, command and path (`hooks.path`,
 *   `gateway webhooks mail run`, `POST /hooks/github`).
 */
import fs from "node:fs";
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
}

/** Registers the plugin against a stand-in for OpenClaw's API and returns its CLI, as `openclaw` runs it. */
function openClawCli(stateDir: string, pluginConfig: Record<string, unknown>): Cli {
  const registrars: Array<(ctx: OpenClawCliContext) => void | Promise<void>> = [];
  const services: OpenClawService[] = [];
  const logs: string[] = [];
  const api: OpenClawPluginApi = {
    id: "inbound-webhooks",
    registrationMode: "full",
    config: { gateway: { port: 9 }, plugins: { entries: { "inbound-webhooks": { enabled: true, config: pluginConfig } } } },
    pluginConfig,
    logger: { info: (m) => void logs.push(m), warn: (m) => void logs.push(m), error: (m) => void logs.push(m) },
    runtime: {
      version: "2026.9.6",
      state: { resolveStateDir: () => stateDir },
      system: { enqueueSystemEvent: () => true, requestHeartbeat: () => undefined },
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

  it("mail setup inside OpenClaw wrote gateway.config.json into the working directory and exited 0: it now refuses, naming where the mail settings go", async () => {
    const cli = openClawCli(state.dir, { token: TOKEN });
    const r = await cli.run(["inbound-webhooks", "mail", "setup", "--host", "imap.example.com", "--user", "me@example.com", "--password-env", "IMAP_PASSWORD", "--no-input"]);
    expect(r.code).toBe(1);
    expect(fs.existsSync(path.join(cwd.dir, "gateway.config.json"))).toBe(false);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe(
      "inbound-webhooks mail setup is not available inside OpenClaw (it writes the embedded gateway's config file): write plugins.entries.inbound-webhooks.config.mail into OpenClaw's config by hand (docs/mail.md).",
    );
  });

  it("mail setup --json inside OpenClaw: the refusal is JSON on stdout, the sentence on stderr", async () => {
    const cli = openClawCli(state.dir, { token: TOKEN });
    const r = await cli.run(["inbound-webhooks", "mail", "setup", "--host", "imap.example.com", "--user", "u", "--password-env", "P", "--no-input", "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ ok: false, code: "not_available", error: expect.stringContaining("not available inside OpenClaw") });
    expect(r.stderr).toContain("not available inside OpenClaw");
    expect(fs.existsSync(path.join(cwd.dir, "gateway.config.json"))).toBe(false);
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

  it("the start notice named `openclaw webhooks` (OpenClaw's Gmail helpers); it names `openclaw inbound-webhooks`", async () => {
    const cli = openClawCli(state.dir, { token: TOKEN });
    const ctx = { stateDir: state.dir, logger: { info: () => undefined, warn: () => undefined, error: () => undefined } };
    await cli.services[0]!.start(ctx);
    try {
      const notice = cli.logs.find((l) => l.includes("not available here"));
      expect(notice).toContain("`openclaw inbound-webhooks deliveries|runs …`");
      expect(notice).not.toContain("openclaw webhooks");
      expect(notice).toContain("mail setup");
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
    expect(setup).toContain("Not available inside OpenClaw");
    const mail = await help("mail");
    expect(mail).toContain("Feed new mail from an IMAP mailbox to the mail preset");
    const texts = [test, setup, mail, await help("deliveries", "list"), await help("runs"), await help("mail", "run")];
    for (const text of texts) {
      expect(text).not.toMatch(/(^|[^.\w])hooks\.[a-z]/);
      expect(text).not.toContain("`gateway webhooks");
      expect(text).not.toContain(" /hooks/");
    }
  });
});
