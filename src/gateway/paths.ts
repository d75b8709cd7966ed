/**
 * Fixed locations of the embedded gateway: the package root (which holds the
 * built-in plugin's `plugin.json`) and the names of files inside a state dir.
 */
import path from "node:path";

/** Root of this package (works from `src/gateway` under ts-jest and from `dist/gateway`). */
export const PACKAGE_ROOT = path.resolve(__dirname, "..", "..");

/** Files and folders inside `gateway.stateDir`. */
export const STATE_FILES = {
  journal: "journal.jsonl",
  demoHookToken: "hook-token",
  demoOperatorToken: "operator-token",
  pluginState: "plugins.json",
  pluginsDir: "plugins",
  pluginData: "data",
  sessions: "sessions",
  gatewayLock: "gateway.lock",
  listenRecord: "gateway.url.json",
} as const;
