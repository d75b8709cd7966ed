/**
 * OpenClaw's `runDetachedWebhookWork` (`openclaw/plugin-sdk/webhook-request-guards`, OpenClaw's docs
 * `plugins/sdk-overview/infrastructure.md` "Post-ack webhook work"): work a webhook acknowledged before
 * doing it runs on a tracked admission root of its own.
 *
 * Why the adapter needs it: a `subagent.run` started outside any tracked root (the plugin's run queue runs
 * after the 202, from its service) has no root to finish under once OpenClaw drains for a stop. Its end
 * (OpenClaw's subagent completion) asks for a new admission, is refused while OpenClaw drains ("subagent
 * completion deferred during gateway restart", every second), and keeps OpenClaw's active-work count up
 * until the drain budget (315 s) runs out: every stop with a run in flight took 5 min 30 s. Started on a
 * detached root, the run's completion continues under that root, and the stop ends once the turn does.
 *
 * Only the start of the run goes on the root (the root lives until OpenClaw's run and its async work end);
 * the plugin's waits for the run stay outside it, or the drain would wait for the plugin's own wait, which
 * only ends when OpenClaw stops the plugin's service after the drain.
 *
 * Found at run time, never a dependency: `import("openclaw/plugin-sdk/…")` where the plugin can resolve
 * OpenClaw's SDK, else the SDK of the `openclaw` package running this process (its entry is argv[1]).
 * OpenClaw keeps its admission state process-wide (a global singleton), so either copy tracks the same
 * roots. Without it (another OpenClaw version) the run starts untracked, as before, and the start line says so.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/** Runs `work` on a tracked admission root of its own (OpenClaw's `runDetachedWebhookWork`). */
export type DetachedWork = <T>(work: () => Promise<T>) => Promise<T>;

const SDK_MODULE = "openclaw/plugin-sdk/webhook-request-guards";

/** The `openclaw` package folder above `entry` (the process's argv[1]), if any. */
export function openClawPackageRoot(entry: string | undefined): string | undefined {
  if (!entry) return undefined;
  let dir: string;
  try {
    dir = path.dirname(fs.realpathSync(entry));
  } catch {
    return undefined;
  }
  for (let depth = 0; depth < 6; depth++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: unknown };
      if (pkg.name === "openclaw") return dir;
    } catch {
      // no package.json here: go up
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}

function detachedOf(mod: unknown): DetachedWork | undefined {
  const fn = (mod as { runDetachedWebhookWork?: unknown } | undefined)?.runDetachedWebhookWork;
  return typeof fn === "function" ? (fn as DetachedWork) : undefined;
}

/** OpenClaw's `runDetachedWebhookWork`, or undefined when this process's OpenClaw offers none. */
export async function loadDetachedWork(entry: string | undefined = process.argv[1]): Promise<DetachedWork | undefined> {
  try {
    const found = detachedOf(await import(SDK_MODULE));
    if (found) return found;
  } catch {
    // not resolvable from the plugin's folder: OpenClaw's own package below
  }
  const root = openClawPackageRoot(entry);
  if (!root) return undefined;
  try {
    // The package resolves its own name through its `exports` (a self-reference).
    const file = createRequire(path.join(root, "package.json")).resolve(SDK_MODULE);
    return detachedOf(await import(pathToFileURL(file).href));
  } catch {
    return undefined;
  }
}
