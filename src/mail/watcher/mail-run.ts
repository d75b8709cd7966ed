/**
 * `gateway webhooks mail run [--once] [--since <date|uid>]`: runs the watcher in the
 * foreground with the plugin's resolved config. SIGINT/SIGTERM stop it cleanly (the
 * batch in flight stays recorded and is re-sent with the same Idempotency-Key next time).
 */
import type { ResolvedHooksConfig } from "../../config/types";
import type { ModuleLogger } from "../../core/logger";
import type { PluginApi } from "../../host-contract/host-api";
import { mailErrors } from "../mail-error";
import { createMailWatcher, type MailRunSummary, type MailSince, type MailWatcherOptions } from "./mail-watcher";

export interface MailRunFlags {
  once?: boolean;
  since?: string;
  /** `--max-wait <seconds>` (with --once): how long to retry a batch while the gateway is down. */
  maxWait?: string;
  json?: boolean;
}

export interface MailRunContext {
  api: Pick<PluginApi, "config" | "configDir" | "configPath" | "stateDir">;
  config: ResolvedHooksConfig;
  logger: ModuleLogger;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Test seams passed to the watcher. */
  watcher?: Partial<Pick<MailWatcherOptions, "reconnectBackoff" | "postBackoff" | "fetch" | "random" | "now">>;
}

export interface MailRunResult {
  summary: MailRunSummary;
  /** True when a signal stopped the run (for --once: before everything was handled). */
  stopped: boolean;
}

/** `--since 2024-05-01` (a date, day granularity) or `--since 1234` (a UID, inclusive). */
export function parseSince(value: string): MailSince {
  const s = value.trim();
  if (/^\d+$/.test(s)) {
    const uid = Number(s);
    if (uid >= 1 && uid <= 0xffffffff) return { uid };
  } else if (/^\d{4}-\d{2}-\d{2}/.test(s)) {
    const date = new Date(s);
    if (!Number.isNaN(date.getTime())) return { date };
  }
  throw mailErrors.sinceInvalid({ got: value.slice(0, 100) });
}

/** `--max-wait 120` → 120 000 ms; whole seconds from 0 (a single attempt) to 86400. */
export function parseMaxWait(value: string, once: boolean): number {
  if (!once) throw mailErrors.maxWaitWithoutOnce();
  const s = value.trim();
  if (/^\d+$/.test(s) && Number(s) <= 86_400) return Number(s) * 1000;
  throw mailErrors.maxWaitInvalid({ got: value.slice(0, 100) });
}

/** Checks the config and runs the watcher; throws MailError for anything the user must fix. */
export async function runMailCommand(flags: MailRunFlags, ctx: MailRunContext): Promise<MailRunResult> {
  const { config } = ctx;
  const where = ctx.api.configPath ?? "the gateway config";
  const mail = config.mail;
  if (!mail) throw mailErrors.mailNotConfigured({ where });
  if (!config.enabled || config.token === "") {
    throw mailErrors.hooksNotEnabled({ where });
  }
  const since = flags.since === undefined ? undefined : parseSince(flags.since);
  const onceMaxWaitMs = flags.maxWait === undefined ? undefined : parseMaxWait(flags.maxWait, flags.once === true);
  const watcher = createMailWatcher({
    mail,
    token: config.token,
    hookUrl: mail.hookUrl,
    stateDir: ctx.api.stateDir,
    logger: ctx.logger,
    maxBodyBytes: config.maxBodyBytes,
    configDir: ctx.api.configDir,
    since,
    onceMaxWaitMs,
    env: ctx.env,
    ...ctx.watcher,
  });
  const summary = flags.once ? await watcher.runOnce(ctx.signal) : await watcher.run(ctx.signal);
  return { summary, stopped: ctx.signal.aborted };
}

/** One line for the end of a run. */
export function formatRunSummary(r: MailRunResult, once: boolean): string {
  const s = r.summary;
  const what = `${s.delivered} message(s) delivered in ${s.batches} post(s)${s.rejected > 0 ? `, ${s.rejected} rejected by the gateway and skipped` : ""}`;
  if (r.stopped) return `Stopped: ${what}; the checkpoint is at UID ${s.lastUid}${once ? " (interrupted before everything was handled)" : ""}.\n`;
  return `Done: ${what}; the checkpoint is at UID ${s.lastUid}.\n`;
}
