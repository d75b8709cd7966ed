/**
 * Which plugins the operator disabled (`gateway plugins disable <id>`), kept in
 * `<stateDir>/plugins.json` as `{ "disabled": ["id", …] }`. Every discovered
 * plugin is enabled unless listed there.
 */
import fs from "node:fs";
import path from "node:path";
import { STATE_FILES } from "../paths";
import { writeFileAtomic } from "../../host-contract/atomic-write";

export interface PluginState {
  isEnabled(id: string): boolean;
  setEnabled(id: string, enabled: boolean): void;
}

export function openPluginState(stateDir: string): PluginState {
  const file = path.join(stateDir, STATE_FILES.pluginState);
  const read = (): Set<string> => {
    if (!fs.existsSync(file)) return new Set();
    try {
      const data = JSON.parse(fs.readFileSync(file, "utf8")) as { disabled?: unknown };
      return new Set(Array.isArray(data.disabled) ? data.disabled.filter((x): x is string => typeof x === "string") : []);
    } catch {
      throw new Error(`${file} is not valid JSON; fix or delete it`);
    }
  };
  return {
    isEnabled: (id) => !read().has(id),
    setEnabled(id, enabled) {
      const disabled = read();
      if (enabled) disabled.delete(id);
      else disabled.add(id);
      // Replaced whole (its dir created private when missing): a full disk or a crash mid-write leaves the previous file, never half of one.
      writeFileAtomic(file, `${JSON.stringify({ disabled: [...disabled].sort() }, null, 2)}\n`, 0o644);
    },
  };
}
