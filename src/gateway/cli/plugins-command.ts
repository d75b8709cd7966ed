/**
 * `gateway plugins list | install <dir|tgz> | enable <id> | disable <id>`.
 * `list` reads manifests and checks config sections without running plugin code; it
 * prints one line per plugin, `id version origin status reason dir` separated by tabs
 * (`-` for a missing value), or `--json`.
 * The implementation loads when a command runs (src/gateway/cli/plugin-rows.ts,
 * the config loader, the installer), not for `--help`.
 */
import path from "node:path";
import type { Command } from "commander";
import type { GatewayConfig } from "../config/gateway-config";
import { STATE_FILES } from "../paths";
import { cliErrors } from "./cli-error";
import { terminalSafeJson, terminalSafeLine } from "../../host-contract/terminal-text";

export interface PluginsIo {
  out: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const rows = () => require("./plugin-rows") as typeof import("./plugin-rows");
const pluginState = () => require("../plugins/plugin-state") as typeof import("../plugins/plugin-state");

function load(io: PluginsIo, configFlag: string | undefined): GatewayConfig {
  const { loadGatewayConfig } = require("../config/load-config") as typeof import("../config/load-config");
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
      const list = rows().listPlugins(load(io, opts.config));
      if (opts.json) {
        // A plugin's name, a reason or a dir may hold C1 controls or bidi overrides, which JSON leaves raw.
        io.out(terminalSafeJson(list));
        return;
      }
      // Six tab-separated columns on every line (`-` for none), each cell one line with no tab of its own.
      for (const r of list) {
        io.out([r.id ?? "(unknown)", r.version ?? "-", r.origin, r.status, r.reason || "-", r.dir].map(terminalSafeLine).join("\t"));
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
        const { installPlugin } = require("../plugins/install") as typeof import("../plugins/install");
        const { PACKAGE_ROOT } = require("../paths") as typeof import("../paths");
        const res = await installPlugin({
          source: path.resolve(io.cwd, source),
          pluginsDir: path.join(config.stateDir, STATE_FILES.pluginsDir),
          hostRoot: PACKAGE_ROOT,
        });
        io.out(`installed ${res.id} ${res.version} in ${res.dir}${res.replaced ? ` (replaced ${res.replaced})` : ""}; dependencies: ${res.dependencies}`);
        pluginState().openPluginState(config.stateDir).setEnabled(res.id, true);
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
        const known = rows()
          .listPlugins(config)
          .some((r) => r.id === id);
        if (!known) throw cliErrors.pluginUnknown({ command: enable ? "enable" : "disable", id });
        pluginState().openPluginState(config.stateDir).setEnabled(id, enable);
        io.out(`${enable ? "enabled" : "disabled"} ${id} (restart the gateway to apply)`);
      });
  }
}
