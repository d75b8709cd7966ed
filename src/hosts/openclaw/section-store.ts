/**
 * The host contract's `sectionStore` inside OpenClaw (host API 1.5): `openclaw inbound-webhooks mail setup` writes
 * `plugins.entries.inbound-webhooks.config` through OpenClaw's own config writer, `api.runtime.config.mutateConfigFile`
 * (docs/plugins/sdk-runtime/config-and-utilities.md, "Config loading and writes") — the mechanism of
 * `openclaw config set`: a focused mutation of OpenClaw's source config (its `${VAR}` references and every other key
 * kept), validated and written by OpenClaw, with `afterWrite: { mode: "auto" }` so a running gateway applies it as
 * any config change (a change under `plugins.*` reloads the plugin in place). The write runs in the CLI command,
 * where OpenClaw's runtime may be asked (its `discovery` load; `api.runtime` is refused only while it collects CLI
 * metadata, when no command runs).
 */
import path from "node:path";
import type { SectionStore } from "../../host-contract/section-store";
import type { OpenClawRuntime } from "./openclaw-api";
import { openClawSnapshot, PLUGIN_ID, section, SECTION_KEY } from "./config-snapshot";
import { OPENCLAW_CLI_ROOT } from "./cli";

export interface OpenClawSectionStoreOptions {
  /** OpenClaw's whole config, as loaded for this command. */
  config: Readonly<Record<string, unknown>>;
  /** `plugins.entries.inbound-webhooks.config` as written. */
  pluginConfig: Record<string, unknown> | undefined;
  runtime: OpenClawRuntime;
  /** OpenClaw's config file (OPENCLAW_CONFIG_PATH, else `<state dir>/openclaw.json`), for messages. */
  configFile: string;
}

function currentSection(runtime: OpenClawRuntime): unknown {
  try {
    const current = runtime.config?.current?.();
    return current ? section(section(section(current.plugins).entries)[PLUGIN_ID]).config : undefined;
  } catch {
    return undefined; // OpenClaw refuses its runtime while it only collects CLI metadata
  }
}

export function openClawSectionStore(opts: OpenClawSectionStoreOptions): SectionStore {
  return {
    location: `${opts.configFile} (${SECTION_KEY})`,
    // OpenClaw's current snapshot (a write of this process refreshes it), else the section the plugin was registered with.
    read: () => structuredClone(section(currentSection(opts.runtime) ?? opts.pluginConfig)),
    snapshotWith: (next) => openClawSnapshot(opts.config, next),
    async write(update) {
      const mutate = opts.runtime.config?.mutateConfigFile;
      if (!mutate) throw new Error("this OpenClaw version offers plugins no config writer (api.runtime.config.mutateConfigFile)");
      await mutate({
        afterWrite: { mode: "auto" },
        mutate(draft) {
          const plugins = (draft.plugins = section(draft.plugins));
          const entries = (plugins.entries = section(plugins.entries));
          const entry = (entries[PLUGIN_ID] = section(entries[PLUGIN_ID]));
          entry.config = update(structuredClone(section(entry.config)));
        },
      });
    },
    commands: { restart: "openclaw gateway restart", mailRun: `openclaw ${OPENCLAW_CLI_ROOT} mail run` },
  };
}

/** OpenClaw's config file: OPENCLAW_CONFIG_PATH, else `openclaw.json` in its state dir. */
export function openClawConfigFile(stateRoot: string): string {
  return process.env.OPENCLAW_CONFIG_PATH ? path.resolve(process.env.OPENCLAW_CONFIG_PATH) : path.join(stateRoot, "openclaw.json");
}
