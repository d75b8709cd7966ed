/**
 * The plugin command groups `gateway --help` lists, read from the enabled plugins'
 * manifests (`contributes.cliCommands`, e.g. "webhooks deliveries list") without
 * running plugin code. Running a group (or `gateway <group> --help`) activates the
 * plugins and shows their own commands. A config the help cannot read lists no group
 * (the help itself still prints; a command that needs the config reports the problem).
 */
import type { Command } from "commander";
import { loadGatewayConfig } from "../config/load-config";
import { discoverConfiguredPlugins } from "../plugins/discover";

export interface DeclareOptions {
  program: Command;
  configFlag?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Adds one described command per group the enabled plugins declare (no action: it is only listed). */
export function declarePluginCommands(opts: DeclareOptions): void {
  let groups: Map<string, { pluginId: string; commands: string[] }>;
  try {
    const { config } = loadGatewayConfig({ configFlag: opts.configFlag, env: opts.env, cwd: opts.cwd });
    const discovered = discoverConfiguredPlugins(config);
    groups = new Map();
    for (const p of discovered) {
      if (p.status !== "ok") continue;
      for (const line of p.manifest!.contributes?.cliCommands ?? []) {
        const [group, ...rest] = line.trim().split(/\s+/);
        if (!group) continue;
        const entry = groups.get(group) ?? { pluginId: p.manifest!.id, commands: [] };
        if (rest.length > 0) entry.commands.push(rest.join(" "));
        groups.set(group, entry);
      }
    }
  } catch {
    return;
  }
  for (const [group, { pluginId, commands }] of groups) {
    if (opts.program.commands.some((c) => c.name() === group)) continue;
    opts.program.command(group).description(`plugin ${pluginId}: ${commands.join(", ") || group} (gateway ${group} --help)`);
  }
}
