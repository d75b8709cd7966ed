/**
 * Issue 32's acceptance inside the real OpenClaw gateway (openclaw 2026.9.6, Node 24), sharing one
 * gateway start:
 *
 * - the install commands of docs/openclaw.md (the `<!-- install-commands -->` block, read from the doc so the
 *   test cannot drift from it), run verbatim by bash in a fresh `git clone` of this repository at HEAD, with
 *   the pinned openclaw on the PATH, install the plugin, and it serves `/webhooks`;
 * - `agentId` reaches a second configured agent (`agents.entries`), whose session store holds the turn; an
 *   agent `allowedAgentIds` leaves out, or one OpenClaw does not know, is 400 agent_not_allowed;
 * - a preset plugin installed into OpenClaw (examples/preset-plugin-alertmanager) contributes a preset a
 *   mapping uses, end to end (its TypeScript transform, the agent run, the model);
 * - `openclaw inbound-webhooks mail setup --no-input` writes the section's `mail` (keeping every other key) and
 *   `openclaw inbound-webhooks mail run --once` against a real dovecot starts the Mail run, whose summary
 *   reaches OpenClaw's main session;
 * - a signed GitHub push with the preset's defaults: the run succeeds and no run summary reports a failed
 *   delivery (inside OpenClaw there is no phone_chat to fall back to).
 *
 * Skipped like openclaw-gateway.test.ts when the pinned Node 24 and openclaw are not cached (and dovecot
 * missing fails it only with CI=true). Each passing test appends its line to OPENCLAW_E2E_MARKER.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Webhooks } from "@octokit/webhooks";
import { until } from "../../helpers/until";
import { githubExample } from "../../helpers/github-examples";
import { startDovecot, type DovecotServer } from "../../mail/helpers/dovecot";
import { plainMessage } from "../../mail/helpers/messages";
import { startFakeModel, type FakeModel } from "./fake-model";
import { findPrerequisites, freePort, getJson, OpenClawHost, ROOT } from "./openclaw-host";

const HOOK_TOKEN = "e2e-features-hook-token-0123456789";
const GATEWAY_TOKEN = "e2e-features-gateway-token-0123456789";
const GITHUB_SECRET = "e2e-features-github-secret-0123456789";
const MAIL_PASSWORD_ENV = "IW_E2E_MAIL_PASSWORD";
const SLOW = { timeoutMs: 300_000, intervalMs: 500 };
type Section = Record<string, unknown>;

const prereq = findPrerequisites();
const missing = "missing" in prereq ? prereq.missing : undefined;
const inCi = process.env.CI === "true";
if (missing && !inCi) process.stderr.write(`\nOpenClaw features e2e suite skipped: ${missing}.\n\n`);

function passed(name: string): void {
  const marker = process.env.OPENCLAW_E2E_MARKER;
  if (marker) fs.appendFileSync(marker, `ok ${name}\n`);
}

/** The shell commands of docs/openclaw.md's `<!-- install-commands -->` block, as a user copies them. */
function docInstallCommands(doc = fs.readFileSync(path.join(ROOT, "docs/openclaw.md"), "utf8")): string {
  const at = doc.indexOf("<!-- install-commands -->");
  if (at < 0) throw new Error("docs/openclaw.md has no <!-- install-commands --> block");
  const block = /```sh\n([^`]*)```/.exec(doc.slice(at));
  if (!block) throw new Error("the <!-- install-commands --> block of docs/openclaw.md is not followed by a ```sh block");
  return block[1]!;
}

/** Files below `dir` whose bytes contain `text` (an agent's session store: SQLite files, transcripts). */
function filesContaining(dir: string, text: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const needle = Buffer.from(text);
  return fs
    .readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, String(f)))
    .filter((f) => fs.statSync(f, { throwIfNoEntry: false })?.isFile() && fs.readFileSync(f).includes(needle));
}

(missing && !inCi ? describe.skip : describe)("issue 32 inside the real OpenClaw gateway: install, agents, preset plugins, mail, GitHub", () => {
  let host: OpenClawHost;
  let model: FakeModel;
  let dovecot: DovecotServer;
  let dir: string;
  let installOutput = "";
  const unique = (what: string) => `${what}-${crypto.randomBytes(5).toString("hex")}`;
  const post = (hookPath: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${host.baseUrl}${hookPath}`, {
      method: "POST",
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const get = (hookPath: string) => getJson(`${host.baseUrl}${hookPath}`, HOOK_TOKEN);
  const detail = () => `--- gateway output (tail) ---\n${host.log().slice(-6000)}\n--- model requests: ${model.requests.length}`;
  const finished = async (runId: string): Promise<Record<string, any>> => {
    let run: Record<string, any> = {};
    await until(
      async () => !["queued", "running", undefined].includes((run = (await get(`/webhooks/runs/${runId}`)).run ?? {}).status),
      `run ${runId} to finish`,
      {
        ...SLOW,
        detail,
      },
    );
    return run;
  };
  /** The CLI and the install run with the test's mail password variable set (mail run reads it). */
  const cli = (args: string[]) => {
    process.env[MAIL_PASSWORD_ENV] = dovecot.password;
    return host.cli(args);
  };

  beforeAll(async () => {
    if (missing) throw new Error(`CI=true and a prerequisite of the OpenClaw suite is missing: ${missing}`);
    // npm's own cache, before HOME is OpenClaw's temp home: the clone's `npm ci` takes what `npm ci` of the checkout fetched.
    const npmCache = process.env.npm_config_cache ?? path.join(os.homedir(), ".npm");
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-openclaw-features-"));
    model = await startFakeModel();
    dovecot = await startDovecot();
    host = new OpenClawHost(prereq as { node24: string; openclaw: string }, dir, await freePort());
    host.writeConfig({
      gateway: { mode: "local", port: host.port, bind: "loopback", auth: { mode: "token", token: GATEWAY_TOKEN } },
      models: { providers: { fake: { api: "openai-completions", baseUrl: model.baseUrl, apiKey: "fake-key", models: [{ id: "fake-1", name: "Fake 1" }] } } },
      agents: { defaults: { model: { primary: "fake/fake-1" } }, entries: { main: { default: true }, ops: {}, secret: {} } },
    });

    // The docs' install commands, verbatim, in a fresh clone at HEAD, `openclaw` on the PATH (the pinned one on Node 24).
    const clone = path.join(dir, "clone");
    const git = spawnSync("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone], { encoding: "utf8" });
    if (git.status !== 0) throw new Error(`git clone failed: ${git.stderr}`);
    const bin = path.join(dir, "bin");
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, "openclaw"), `#!/bin/sh\nexec "${host.prereq.node24}" "${host.prereq.openclaw}" "$@"\n`, { mode: 0o755 });
    const commands = docInstallCommands();
    const run = spawnSync("bash", ["-euo", "pipefail", "-c", commands], {
      cwd: clone,
      encoding: "utf8",
      timeout: 900_000,
      env: { ...host.env, npm_config_cache: npmCache, PATH: `${bin}:${path.dirname(host.prereq.node24)}:${process.env.PATH}` },
    });
    installOutput = `${run.stdout}\n${run.stderr}`;
    if (run.status !== 0)
      throw new Error(`docs/openclaw.md's install commands failed (${run.status ?? run.signal}):\n${commands}\n${installOutput.slice(-6000)}`);
    // For the note: what `npm pack` packed (its notice lines).
    const size = installOutput.split("\n").filter((l) => /npm notice (package size|unpacked size|total files)/.test(l));
    process.stdout.write(`\ndocs install on a fresh clone: ${size.map((l) => l.replace(/^.*npm notice /, "").replace(/\s+/g, " ")).join(", ")}\n`);

    // A preset plugin, installed into OpenClaw with its own commands (docs/presets.md "Inside OpenClaw").
    const preset = spawnSync("npm", ["pack", "--silent", "--pack-destination", dir], {
      cwd: path.join(clone, "examples/preset-plugin-alertmanager"),
      encoding: "utf8",
    });
    if (preset.status !== 0) throw new Error(`npm pack of the preset plugin failed: ${preset.stderr}`);
    const presetInstall = await cli([
      "plugins",
      "install",
      `npm-pack:${path.join(dir, preset.stdout.trim().split("\n").pop()!)}`,
      "--force",
      "--accept-capabilities",
    ]);
    if (presetInstall.status !== 0)
      throw new Error(`installing the preset plugin failed (${presetInstall.status}):\n${presetInstall.stdout}\n${presetInstall.stderr}`);

    const config = host.readConfig() as { plugins: { entries: Record<string, Section> } };
    config.plugins.entries["inbound-webhooks"] = {
      ...config.plugins.entries["inbound-webhooks"],
      enabled: true,
      config: {
        token: HOOK_TOKEN,
        presets: ["github", "alertmanager"],
        github: { secret: GITHUB_SECRET },
        allowedAgentIds: ["main", "ops"],
      },
    };
    host.writeConfig(config);
  }, 1_800_000);

  afterAll(async () => {
    await host?.stop();
    await model?.close();
    await dovecot?.cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("`openclaw inbound-webhooks mail setup --no-input` writes the section's mail and keeps every other key", async () => {
    const setup = await cli([
      "inbound-webhooks",
      "mail",
      "setup",
      "--host",
      dovecot.host,
      "--port",
      String(dovecot.port),
      "--tls",
      "none",
      "--user",
      dovecot.user,
      "--password-env",
      MAIL_PASSWORD_ENV,
      "--no-input",
    ]);
    expect({ status: setup.status, stderr: setup.stderr.slice(-3000) }).toEqual({ status: 0, stderr: expect.any(String) });
    expect(setup.stdout).toContain("plugins.entries.inbound-webhooks.config.mail");
    expect(setup.stdout).not.toMatch(/(^|[^\w./-])hooks\.(mail|presets|token)/);
    // A CLI command starts no service: the plugin's start line ("hooks enabled {…}") is the gateway's alone.
    expect(setup.stdout + setup.stderr).not.toContain("hooks enabled");
    const section = (host.readConfig() as { plugins: { entries: Record<string, { config: Section }> } }).plugins.entries["inbound-webhooks"]!.config;
    expect(section).toEqual(
      expect.objectContaining({
        token: HOOK_TOKEN,
        github: { secret: GITHUB_SECRET },
        allowedAgentIds: ["main", "ops"],
        presets: expect.arrayContaining(["github", "alertmanager", "mail"]),
        mail: expect.objectContaining({ imap: expect.objectContaining({ host: dovecot.host, port: dovecot.port, user: dovecot.user }) }),
      }),
    );
    expect(JSON.stringify(section)).not.toContain(dovecot.password);
    passed("mail-setup");
  }, 400_000);

  it("the docs' install commands, run verbatim on a fresh clone, installed the plugin, and it serves /webhooks", async () => {
    host.start();
    await until(
      async () => {
        try {
          return (await fetch(`${host.baseUrl}/webhooks/wake`, { method: "POST", body: "{}" })).status === 401;
        } catch {
          return false;
        }
      },
      "the plugin installed by the docs' commands to serve /webhooks",
      { ...SLOW, timeoutMs: 600_000, detail: () => `${detail()}\n--- install output (tail) ---\n${installOutput.slice(-3000)}` },
    );
    const wake = await post("/webhooks/wake", { text: unique("installed") });
    expect({ status: wake.status, body: await wake.json() }).toEqual({ status: 200, body: { ok: true, mode: "now" } });
    passed("docs-install");
  }, 700_000);

  it("agentId: a run for the second agent is that agent's turn (its session store holds it); a disallowed or unknown agent → 400 agent_not_allowed", async () => {
    const message = unique("ops-message");
    const res = await post("/webhooks/agent", { message, name: "Ops", agentId: "ops" });
    expect(res.status).toBe(202);
    // The plugin's key (hook:…); OpenClaw's session of the run is that agent's agent:ops:hook:….
    const body = (await res.json()) as { runId: string; sessionKey: string };
    expect(body.sessionKey).toMatch(/^hook:/);
    const run = await finished(body.runId);
    expect(run.status).toBe("succeeded");
    expect(model.chatsContaining(message)).toHaveLength(1);
    // OpenClaw keeps each agent's sessions in its own store (agents/<agentId>/): the turn and its session key are in ops's, not main's.
    const agents = path.join(dir, "state", "agents");
    const opsKey = `agent:ops:${body.sessionKey}`;
    await until(() => filesContaining(path.join(agents, "ops"), message).length > 0, "the turn in the ops agent's session store", { ...SLOW, detail });
    expect(filesContaining(path.join(agents, "ops"), opsKey).length).toBeGreaterThan(0);
    expect(filesContaining(path.join(agents, "main"), message)).toEqual([]);

    for (const agentId of ["secret", "nobody"]) {
      const refused = await post("/webhooks/agent", { message: "x", agentId });
      const answer = (await refused.json()) as { code: string; error: string };
      expect({ status: refused.status, code: answer.code }).toEqual({ status: 400, code: "agent_not_allowed" });
      expect(answer.error).toContain("main, ops");
    }
    passed("agent-id");
  }, 700_000);

  it("a preset plugin installed into OpenClaw contributes a preset a mapping uses: an Alertmanager alert → 202 → its agent run succeeds", async () => {
    const firing = JSON.parse(fs.readFileSync(path.join(ROOT, "examples/preset-plugin-alertmanager/fixtures/firing.json"), "utf8")) as Section;
    const res = await post("/webhooks/alertmanager", firing);
    const body = (await res.json()) as { runId?: string; mapping?: string };
    expect({ status: res.status, mapping: body.mapping }).toEqual({ status: 202, mapping: "alertmanager" });
    const run = await finished(body.runId!);
    expect(run.status).toBe("succeeded");
    // The preset's TypeScript transform made the message the model was sent.
    expect(model.chatsContaining("DiskAlmostFull").length).toBeGreaterThan(0);
    passed("preset-plugin");
  }, 700_000);

  it("a signed GitHub push with the preset's defaults: the run succeeds, and no run summary reports a failed delivery", async () => {
    const payload = JSON.stringify(githubExample("push"));
    const res = await post("/webhooks/github", payload, {
      authorization: "",
      "x-github-event": "push",
      "x-github-delivery": crypto.randomUUID(),
      "x-hub-signature-256": await new Webhooks({ secret: GITHUB_SECRET }).sign(payload),
    });
    expect(res.status).toBe(202);
    const run = await finished(((await res.json()) as { runId: string }).runId);
    expect({ status: run.status, summary: run.summary }).toEqual({ status: "succeeded", summary: expect.not.stringMatching(/fail/i) });
    const { runs } = (await get("/webhooks/runs?limit=100")) as { runs: Array<{ summary?: string }> };
    expect(runs.filter((r) => /deliver[^\n]*fail/i.test(r.summary ?? ""))).toEqual([]);
    passed("github-defaults");
  }, 700_000);

  it("`openclaw inbound-webhooks mail run --once` against dovecot: the Mail run succeeds and its summary reaches OpenClaw's main session", async () => {
    const subject = unique("mail-subject");
    // A first run starts after the mail already there (the checkpoint is UIDNEXT − 1): --since names this one.
    const uid = await dovecot.append(plainMessage(subject, "The backup finished; 3 files were skipped.").raw);
    const watched = await cli(["inbound-webhooks", "mail", "run", "--once", "--since", String(uid), "--max-wait", "120"]);
    expect({ status: watched.status, stderr: watched.stderr.slice(-3000) }).toEqual({ status: 0, stderr: expect.any(String) });
    expect(watched.stdout + watched.stderr).not.toMatch(/(^|[^\w./-])hooks\.(mail|token|enabled|presets)/);
    await until(() => model.chatsContaining(subject).length > 0, "the Mail run's turn to reach the model", { ...SLOW, detail });
    let mail: { id: string; status: string; summary?: string } | undefined;
    await until(
      async () => {
        const { runs } = (await get("/webhooks/runs?limit=100")) as { runs: Array<{ id: string; name?: string; status: string; summary?: string }> };
        mail = runs.find((r) => r.name === "Mail" && !["queued", "running"].includes(r.status));
        return mail !== undefined;
      },
      "the Mail run to finish",
      { ...SLOW, detail },
    );
    expect(mail!.status).toBe("succeeded");
    const firstLine = String(mail!.summary).split("\n")[0]!;
    expect(firstLine).toMatch(/^Hook Mail: fake reply \d+$/);
    await until(() => model.chatsContaining(firstLine).length > 0, "the Mail run's summary in the main session's heartbeat prompt", { ...SLOW, detail });
    passed("mail-run");
  }, 700_000);
});
