/**
 * `gateway start [--config FILE] [--port N] [--role consumer|receiver]`: loads the config, starts the
 * gateway and prints the start-up lines on stdout — one line per plugin, the routes, for
 * the demo default the hook token (first start only) with a ready-to-paste curl
 * command and a one-time login link for the dashboard (every start), and last
 * `listening: <url>` (parsed by tests and scripts). Runs
 * until SIGINT/SIGTERM, then prints `stopping (<signal>)`, stops cleanly and exits 0.
 * The gateway's modules load when the command runs (not for `--help`).
 */
import type { Command } from "commander";
import type { LoadedConfig } from "../config/load-config";
import type { RunningGateway } from "../gateway";
import { parsePortOption, parseRoleOption } from "./cli-error";
import type { HookRole } from "../../host-contract/hook-role";
import { GatewayConfigError } from "../config/config-error";
import { shellQuote } from "../../host-contract/shell-quote";
import { terminalSafeLine } from "../../host-contract/terminal-text";

export interface StartIo {
  out: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM). */
  waitForStop: () => Promise<string>;
}

/**
 * The start-up lines; `markShown` records that the demo hook token was printed once. Each line
 * with its control characters escaped (SPEC §9): a plugin's line says what its manifest says.
 */
export function printStartup(
  gw: RunningGateway,
  loaded: LoadedConfig,
  write: (line: string) => void,
  markShown: (token: NonNullable<LoadedConfig["demoToken"]>) => void,
): void {
  const out = (line: string) => write(terminalSafeLine(line));
  const { config, located, demoToken } = loaded;
  out(`config: ${config.configPath ?? "demo default (no --config, $GATEWAY_CONFIG or ./gateway.config.json)"}`);
  out(`state: ${config.stateDir}`);
  if (config.role === "receiver") out("role: receiver (verifies, dedupes, stores and answers; runs no agent turn)");
  for (const p of gw.plugins) {
    const name = p.id ?? p.dir;
    out(`plugin: ${name}${p.version ? ` ${p.version}` : ""} (${p.origin}) ${p.status}${p.reason ? `: ${p.reason}` : ""}`);
  }
  for (const r of gw.routes) out(`route: ${gw.url}${r.prefix} → ${r.pluginId}`);
  if (located.from === "demo" && demoToken) {
    for (const note of loaded.demoNotes ?? []) out(note);
    const tokenExpr = demoToken.firstShow ? demoToken.token : `$(cat ${shellQuote(demoToken.file)})`;
    if (demoToken.firstShow) out(`hook token (generated, stored in ${demoToken.file}; shown only this once): ${demoToken.token}`);
    else out(`hook token: stored in ${demoToken.file}`);
    out(`try: curl -X POST -H "Authorization: Bearer ${tokenExpr}" -d '{"text":"hello"}' ${gw.url}/hooks/wake`);
    if (demoToken.firstShow) markShown(demoToken);
    const link = gw.loginLink();
    if (link)
      out(
        `dashboard: ${link.url} (one-time login link: opens the deliveries page; single use, valid ${Math.round((link.expiresAt - Date.now()) / 60_000)} minutes)`,
      );
    if (loaded.demoOperatorTokenFile) out(`operator token (dashboard login, /metrics, /api/*): stored in ${loaded.demoOperatorTokenFile}`);
  }
  // Last, so a reader of this line has all the lines above.
  out(`listening: ${gw.url}`);
}

export function registerStartCommand(program: Command, io: StartIo): void {
  program
    .command("start")
    .description("Start the gateway (HTTP server, plugins, heartbeat) until SIGINT/SIGTERM")
    .option("-c, --config <file>", "config file (default: $GATEWAY_CONFIG, ./gateway.config.json, else the demo default)")
    .option("-p, --port <n>", "port to listen on (0 = any free port); overrides gateway.port", parsePortOption)
    .option(
      "--role <role>",
      'consumer (runs agent turns, the default) or receiver (verifies, dedupes, stores and answers; needs hooks.store.kind "postgres"); overrides gateway.role',
      parseRoleOption,
    )
    .action(async (opts: { config?: string; port?: number; role?: HookRole }) => {
      const { loadGatewayConfig, readConfigSource } = require("../config/load-config") as typeof import("../config/load-config");
      const { markDemoTokenShown } = require("../config/demo-config") as typeof import("../config/demo-config");
      const { startGateway } = require("../gateway") as typeof import("../gateway");
      const where = { configFlag: opts.config, env: io.env, cwd: io.cwd, portOverride: opts.port, roleOverride: opts.role };
      let loaded: LoadedConfig;
      // Read once: a config given as a pipe (`--config <(…)`) cannot be read again.
      const source = readConfigSource(where);
      try {
        loaded = loadGatewayConfig({ ...where, source });
      } catch (e) {
        // The gateway's own keys are wrong: name the plugins' problems of the same file too (one start, every problem).
        if (!(e instanceof GatewayConfigError)) throw e;
        const { withPluginProblems } = require("./config-problems") as typeof import("./config-problems");
        throw await withPluginProblems(e, source);
      }
      // Listen for SIGINT/SIGTERM before anything is printed: a signal right after
      // the `listening:` line (or during start-up) must stop the gateway cleanly.
      const stopRequested = io.waitForStop();
      const gw = await startGateway({ config: loaded.config, env: io.env });
      printStartup(gw, loaded, io.out, markDemoTokenShown);
      const signal = await stopRequested;
      io.out(`stopping (${signal})`);
      await gw.stop();
    });
}
