/**
 * `gateway plugins list | install <dir|tgz> | enable <id> | disable <id>`.
 * `list` reads manifests and checks config sections without running plugin code.
 */
import path from "node:path";
import type { Command } from "commander";
import { loadGatewayConfig } from "../config/load-config";
import type { GatewayConfig } from "../config/gateway-config";
import { PACKAGE_ROOT, STATE_FILES } from "../paths";
import { discoverPlugins, type DiscoveredPlugin } from "../plugins/discover";
import { openPluginState } from "../plugins/plugin-state";
import { checkPluginConfig } from "../plugins/plugin-config";
import { installPlugin } from "../plugins/install";
import { cliErrors } from "./cli-error";

export interface PluginsIo {
  out: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface PluginListRow {
  id: string | null;
  name: string | null;
  version: string | null;
  origin: DiscoveredPlugin["origin"];
  dir: string;
  status: "enabled" | "disabled" | "broken" | "shadowed";
  reason: string | null;
}

/** Rows of `gateway plugins list` (no plugin code runs). */
export function listPlugins(config: GatewayConfig): PluginListRow[] {
  const found = discoverPlugins({
    builtinDir: PACKAGE_ROOT,
    paths: config.pluginPaths,
    installedDir: path.join(config.stateDir, STATE_FILES.pluginsDir),
    state: openPluginState(config.stateDir),
  });
  return found.map((p) => {
    let status: PluginListRow["status"] = p.status === "ok" ? "enabled" : p.status;
    let reason = p.reason ?? null;
    if (p.status === "ok") {
      const problems = checkPluginConfig(p.manifest!, config.raw);
      if (problems.length > 0) {
        status = "broken";
        reason = `invalid config: ${problems.map((x) => `${x.key} ${x.rule}`).join("; ")}`;
      }
    }
    return {
      id: p.id ?? null,
      name: p.manifest?.name ?? null,
      version: p.manifest?.version ?? null,
      origin: p.origin,
      dir: p.dir,
      status,
      reason,
    };
  });
}

function load(io: PluginsIo, configFlag: string | undefined): GatewayConfig {
  return loadGatewayConfig({ configFlag, env: io.env, cwd: io.cwd }).config;
}

export function registerPluginsCommand(program: Command, io: PluginsIo): void {
  const plugins = program.command("plugins").description("List, install, enable and disable plugins");
  const configOpt = ["-c, --config <file>", "config file (default: $GATEWAY_CONFIG, ./gateway.config.json, else the demo default)"] as const;

  plugins
    .command("list")
    .description("List discovered plugins with their status (built-in, plugins.paths, <stateDir>/plugins)")
    .option(...configOpt)
    .option("--json", "print JSON")
    .action((opts: { config?: string; json?: boolean }) => {
      const rows = listPlugins(load(io, opts.config));
      if (opts.json) {
        io.out(JSON.stringify(rows, null, 2));
        return;
      }
      for (const r of rows) {
        io.out(`${r.id ?? "(unknown)"}\t${r.version ?? "-"}\t${r.origin}\t${r.status}${r.reason ? `\t${r.reason}` : ""}\t${r.dir}`);
      }
    });

  plugins
    .command("install")
    .description("Install a plugin from a directory or an npm pack tarball into <stateDir>/plugins/")
    .argument("<source>", "plugin directory or .tgz")
    .option(...configOpt)
    .action(async (source: string, opts: { config?: string }) => {
      const config = load(io, opts.config);
      try {
        const res = await installPlugin({ source: path.resolve(io.cwd, source), pluginsDir: path.join(config.stateDir, STATE_FILES.pluginsDir), hostRoot: PACKAGE_ROOT });
        io.out(`installed ${res.id} ${res.version} in ${res.dir}${res.replaced ? ` (replaced ${res.replaced})` : ""}; dependencies: ${res.dependencies}`);
        openPluginState(config.stateDir).setEnabled(res.id, true);
      } catch (e) {
        throw cliErrors.pluginInstallFailed({ reason: (e as Error).message });
      }
    });

  for (const enable of [true, false]) {
    plugins
      .command(enable ? "enable" : "disable")
      .description(enable ? "Enable a plugin (takes effect on the next start)" : "Disable a plugin (takes effect on the next start)")
      .argument("<id>", "plugin id")
      .option(...configOpt)
      .action((id: string, opts: { config?: string }) => {
        const config = load(io, opts.config);
        const known = listPlugins(config).some((r) => r.id === id);
        if (!known) throw cliErrors.pluginUnknown({ command: enable ? "enable" : "disable", id });
        openPluginState(config.stateDir).setEnabled(id, enable);
        io.out(`${enable ? "enabled" : "disabled"} ${id} (restart the gateway to apply)`);
      });
  }
}
