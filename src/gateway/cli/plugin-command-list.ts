/**
 * The plugin command groups `gateway --help` lists, read from the enabled plugins'
 * manifests (`contributes.cliCommands`, e.g. "webhooks deliveries list") without
 * running plugin code. Running a group (or `gateway <group> --help`) activates the
 * plugins and shows their own commands. A config the help cannot read lists no group
 * (the help itself still prints; a command that needs the config reports the problem).
 *
 * When the plugins cannot be activated (their config is wrong), `gateway <group> … --help`
 * still prints: `declarePluginCommandTree` declares each group's commands by name from the
 * manifests (options and arguments are known only to the activated plugin).
 */
import type { Command } from "commander";
import { loadGatewayConfig } from "../config/load-config";
import { discoverConfiguredPlugins, discoverPlugins, type DiscoveredPlugin } from "../plugins/discover";
import { PACKAGE_ROOT } from "../paths";

export interface DeclareOptions {
  program: Command;
  configFlag?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

type Groups = Map<string, { pluginId: string; commands: string[] }>;

/** The groups the enabled plugins' manifests declare; when the config cannot be read: none, or (`builtin`) those of this package's own plugin. */
function manifestGroups(opts: DeclareOptions, whenUnreadable: "none" | "builtin"): Groups | undefined {
  let discovered: DiscoveredPlugin[];
  try {
    const { config } = loadGatewayConfig({ configFlag: opts.configFlag, env: opts.env, cwd: opts.cwd });
    discovered = discoverConfiguredPlugins(config);
  } catch {
    if (whenUnreadable === "none") return undefined;
    discovered = discoverPlugins({ builtinDir: PACKAGE_ROOT, paths: [], state: { isEnabled: () => true, setEnabled: () => undefined } });
  }
  const groups: Groups = new Map();
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
  return groups;
}

/** Adds one described command per group the enabled plugins declare (no action: it is only listed). */
export function declarePluginCommands(opts: DeclareOptions): void {
  const groups = manifestGroups(opts, "none");
  for (const [group, { pluginId, commands }] of groups ?? []) {
    if (opts.program.commands.some((c) => c.name() === group)) continue;
    opts.program.command(group).description(`plugin ${pluginId}: ${commands.join(", ") || group} (gateway ${group} --help)`);
  }
}

/**
 * For the help of a plugin command whose plugins could not be activated: each group and its
 * commands (`deliveries list` → `deliveries` › `list`) by name, without options or actions.
 * A config that cannot be read at all gives this package's own plugin's commands.
 */
export function declarePluginCommandTree(opts: DeclareOptions): void {
  for (const [group, { pluginId, commands }] of manifestGroups(opts, "builtin") ?? []) {
    if (opts.program.commands.some((c) => c.name() === group)) continue;
    const top = opts.program.command(group).description(`plugin ${pluginId} (its options are listed once the config is valid)`);
    for (const line of commands) {
      let parent = top;
      for (const word of line.split(" ")) {
        parent = parent.commands.find((c) => c.name() === word) ?? parent.command(word);
      }
    }
  }
}
