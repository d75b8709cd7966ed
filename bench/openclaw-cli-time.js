#!/usr/bin/env node
"use strict";
/**
 * `npm run bench:openclaw-cli` (issue 32: "our part of a CLI command ≤ 1 s beyond OpenClaw's own
 * start"): the CPU (user + sys) and wall time of three OpenClaw commands, in a throwaway OpenClaw home
 * (the pinned openclaw on the pinned Node 24, from scripts/ci/node24.sh and scripts/ci/openclaw.sh, as
 * the OpenClaw e2e suite and `npm run bench -- --openclaw` find them), no gateway running:
 *
 *   openclaw --help                              OpenClaw's own start
 *   openclaw tiny-cli hello                      OpenClaw's start for a plugin command: a plugin written
 *                                                here, one command, no dependency, installed the same way
 *   openclaw inbound-webhooks deliveries list    ours (no gateway: its own work is one refused connection)
 *
 * The plugin is this repository packed from the built dist/ (`npm run build` first; the npm script
 * does) and installed with `openclaw plugins install npm-pack:… --force`, as docs/openclaw.md says.
 * One warm-up of each command (the first command after an install is not representative), then
 * BENCH_ROUNDS (default 3, or `--rounds N`) rounds of the three, interleaved. Each command runs under
 * /usr/bin/time, whose user and sys times cover the whole process tree OpenClaw waits for; before each
 * command it waits (at most BENCH_QUIET_WAIT_S, default 120 s) for the 1-minute load average to fall
 * below BENCH_MAX_LOAD (default 1), as the other benches do, and records the load average at its start.
 * It refuses nothing: a round in which a command started above load 1 is labelled and does not count.
 *
 * Prints a table per round and the medians, and "our part" = ours − tiny (CPU and wall) per round and
 * the median of the rounds'. `--keep` leaves the temp dir (its path is printed). Not part of `npm test`.
 */
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawn, spawnSync, execFileSync } = require("node:child_process");
const { createJiti } = require("jiti");
const T = require("./lib/targets");

const jiti = createJiti(__filename);
const { findPrerequisites, freePort, OpenClawHost } = jiti(path.join(T.ROOT, "test/e2e/openclaw/openclaw-host.ts"));
const { packedTarball } = jiti(path.join(T.ROOT, "test/helpers/packed-tarball.ts"));

const argValue = (name) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(argValue("--rounds") ?? process.env.BENCH_ROUNDS ?? 3);
const KEEP = process.argv.includes("--keep");
const TIME = "/usr/bin/time";
const COMMAND_TIMEOUT_MS = 15 * 60_000;
const log = (...a) => console.error(...a);

const COMMANDS = [
  { key: "help", label: "openclaw --help", args: ["--help"], expect: /Usage/i },
  { key: "tiny", label: "openclaw tiny-cli hello", args: ["tiny-cli", "hello"], expect: /tiny-cli: hello/ },
  // No gateway runs: the command answers that it cannot reach one (status 1), after loading the plugin.
  { key: "ours", label: "openclaw inbound-webhooks deliveries list", args: ["inbound-webhooks", "deliveries", "list"], expect: /not reachable/i },
];

/** The dependency-free plugin with one command, written into `dir` as a package (what OpenClaw needs of any plugin). */
function writeTinyPlugin(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const descriptor = { name: "tiny-cli", description: "One command, no dependency (bench/openclaw-cli-time.js)", hasSubcommands: true };
  const ours = JSON.parse(fs.readFileSync(path.join(T.ROOT, "package.json"), "utf8"));
  const files = {
    "package.json": {
      name: "tiny-cli",
      version: "1.0.0",
      main: "index.js",
      files: ["index.js", "openclaw.plugin.json"],
      openclaw: { extensions: ["./index.js"], compat: ours.openclaw.compat },
    },
    // The same activation as ours (openclaw.plugin.json): loaded at the gateway's start and for its command.
    "openclaw.plugin.json": {
      id: "tiny-cli",
      name: "Tiny CLI",
      description: descriptor.description,
      version: "1.0.0",
      activation: { onStartup: true, onCommands: ["tiny-cli"] },
      cliCommands: [descriptor],
      configSchema: { type: "object", additionalProperties: false },
    },
  };
  for (const [name, json] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), `${JSON.stringify(json, null, 2)}\n`);
  fs.writeFileSync(
    path.join(dir, "index.js"),
    `"use strict";
const descriptor = ${JSON.stringify(descriptor)};
module.exports = {
  id: "tiny-cli",
  name: "Tiny CLI",
  description: descriptor.description,
  register(api) {
    api.registerCli(({ program }) => {
      program.command("tiny-cli").description(descriptor.description).command("hello").action(() => console.log("tiny-cli: hello"));
    }, { descriptors: [descriptor] });
  },
};
`,
  );
  const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", path.dirname(dir)], { cwd: dir, encoding: "utf8" });
  return path.join(path.dirname(dir), out.trim().split("\n").pop());
}

async function install(host, tgz) {
  const r = await host.cli(["plugins", "install", `npm-pack:${tgz}`, "--force", "--accept-capabilities"], COMMAND_TIMEOUT_MS);
  if (r.status !== 0) throw new Error(`openclaw plugins install ${path.basename(tgz)} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
}

/** One command under /usr/bin/time: CPU (user + sys, s), wall (s), the load average at its start, its exit status. */
function timed(host, command, dir) {
  const out = path.join(dir, "time.txt");
  const load = os.loadavg()[0];
  return new Promise((resolve, reject) => {
    const child = spawn(TIME, ["-f", "%U %S %e", "-o", out, host.prereq.node24, host.prereq.openclaw, ...command.args], {
      env: host.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group, so a timeout ends OpenClaw's children too
    });
    let output = "";
    const keep = (c) => (output = (output + c.toString()).slice(-20_000));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => process.kill(-child.pid, "SIGKILL"), COMMAND_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      // GNU time writes "Command exited with non-zero status N" before the figures when it does.
      const figures = fs.readFileSync(out, "utf8").trim().split("\n").pop().split(/\s+/).map(Number);
      if (figures.length !== 3 || figures.some((n) => !Number.isFinite(n))) return reject(new Error(`${command.label}: no figures from ${TIME}:\n${output}`));
      if (!command.expect.test(output))
        return reject(new Error(`${command.label} (status ${status}) did not print ${command.expect}:\n${output.slice(-4000)}`));
      const [user, sys, wall] = figures;
      resolve({ cpu: user + sys, user, sys, wall, load, status });
    });
  });
}

const s1 = (n) => n.toFixed(1);
const signed = (n) => `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(1)}`;

function report(rounds, meta) {
  const loaded = (r) => Object.values(r).some((m) => m.load > 1);
  console.log(`\n${meta}\nCPU = user + sys of the whole command (s); wall (s); load = 1-minute load average at the command's start.\n`);
  const rows = {};
  for (const c of COMMANDS) {
    const row = {};
    rounds.forEach((r, i) => {
      const m = r[c.key];
      row[`round ${i + 1}${loaded(r) ? " (load > 1)" : ""}`] = `${s1(m.cpu)} (wall ${s1(m.wall)}, load ${m.load.toFixed(1)})`;
    });
    row.median = `${s1(T.median(rounds.map((r) => r[c.key].cpu)))} (wall ${s1(T.median(rounds.map((r) => r[c.key].wall)))})`;
    rows[c.label] = row;
  }
  console.table(rows);
  const part = rounds.map((r) => ({ cpu: r.ours.cpu - r.tiny.cpu, wall: r.ours.wall - r.tiny.wall }));
  const counted = part.filter((_, i) => !loaded(rounds[i]));
  const lines = part.map(
    (p, i) =>
      `  round ${i + 1}: CPU ${signed(p.cpu)} s, wall ${signed(p.wall)} s${loaded(rounds[i]) ? " (a command started at load > 1: does not count)" : ""}`,
  );
  const med = (xs, k) => signed(T.median(xs.map((p) => p[k])));
  console.log(`our part (ours − tiny-cli, the plugin's share of a plugin command):\n${lines.join("\n")}`);
  console.log(`  median of all ${part.length} round(s): CPU ${med(part, "cpu")} s, wall ${med(part, "wall")} s`);
  if (counted.length > 0 && counted.length < part.length)
    console.log(`  median of the ${counted.length} round(s) below load 1: CPU ${med(counted, "cpu")} s, wall ${med(counted, "wall")} s`);
  const overHelp = rounds.map((r) => r.ours.cpu - r.help.cpu);
  console.log(
    `ours − openclaw --help (median, CPU): ${signed(T.median(overHelp))} s; tiny-cli − --help: ${signed(T.median(rounds.map((r) => r.tiny.cpu - r.help.cpu)))} s`,
  );
  const basis = counted.length > 0 ? counted : undefined;
  const verdict = basis ? (T.median(basis.map((p) => p.cpu)) <= 1 ? "met" : "not met") : "not judged (every round started at load > 1)";
  console.log(`target (issue 32): our part of a CLI command ≤ 1 s of CPU beyond OpenClaw's start for a plugin command — ${verdict}`);
}

async function main() {
  if (!fs.existsSync(TIME)) throw new Error(`${TIME} (GNU time) is needed to measure a process tree's CPU: apt-get install time`);
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("--rounds / BENCH_ROUNDS: a positive integer");
  const prereq = findPrerequisites();
  if ("missing" in prereq) throw new Error(`bench/openclaw-cli-time.js: ${prereq.missing}`);
  const started = new Date();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-openclaw-cli-"));
  try {
    const host = new OpenClawHost(prereq, dir, await freePort());
    // A port nothing listens on: `deliveries list` finds no gateway.
    host.writeConfig({
      gateway: { mode: "local", port: host.port, bind: "loopback", auth: { mode: "token", token: "bench-openclaw-gateway-token-0123456789" } },
    });
    log(`  openclaw home in ${dir}; installing the packed plugin and tiny-cli (a minute or two)`);
    await install(host, packedTarball(dir));
    await install(host, writeTinyPlugin(path.join(dir, "tiny-cli")));
    const config = host.readConfig();
    const entries = config.plugins.entries;
    entries["inbound-webhooks"] = { ...entries["inbound-webhooks"], enabled: true, config: { token: T.TOKEN } };
    entries["tiny-cli"] = { ...entries["tiny-cli"], enabled: true };
    host.writeConfig(config);
    for (const c of COMMANDS) {
      await T.quiet(log);
      const w = await timed(host, c, dir);
      log(`  warm-up ${c.label}: CPU ${s1(w.cpu)} s, wall ${s1(w.wall)} s, load ${w.load.toFixed(1)}, status ${w.status}`);
    }
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) {
      const r = {};
      for (const c of COMMANDS) {
        await T.quiet(log);
        r[c.key] = await timed(host, c, dir);
        log(`  round ${i + 1} ${c.label}: CPU ${s1(r[c.key].cpu)} s, wall ${s1(r[c.key].wall)} s, load ${r[c.key].load.toFixed(1)}`);
      }
      rounds.push(r);
    }
    const node = spawnSync(prereq.node24, ["--version"], { encoding: "utf8" }).stdout.trim();
    const openclaw = JSON.parse(fs.readFileSync(path.join(path.dirname(prereq.openclaw), "package.json"), "utf8")).version;
    const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: T.ROOT, encoding: "utf8" }).stdout.trim();
    const cpus = os.cpus();
    report(
      rounds,
      `${started.toISOString()} · ${commit} · openclaw ${openclaw} on node ${node} · ${cpus.length} × ${cpus[0]?.model ?? "cpu"} · no gateway running`,
    );
  } finally {
    if (KEEP) log(`  kept ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
