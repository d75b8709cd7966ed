/**
 * `hooks.mail.autoStart`: the gateway runs the mail watcher itself, as a registered
 * service, with the same guarantees as `gateway webhooks mail run`. A fatal error
 * (login refused, mailbox missing, hook misconfigured) stops the watcher with one
 * error log line; the gateway keeps running.
 */
import type { ResolvedHooksConfig } from "../../config/types";
import type { ModuleLogger } from "../../core/logger";
import type { ServiceRegistration } from "../../host-contract/host-api";
import { isMailError } from "../mail-error";
import { createMailWatcher, type MailWatcherOptions } from "./mail-watcher";

export const MAIL_SERVICE_ID = "inbound-webhooks.mail";

export interface MailServiceOptions {
  config: ResolvedHooksConfig;
  stateDir: string;
  logger: ModuleLogger;
  /** Directory a relative password file resolves against (default: the working directory). */
  configDir?: string;
  /** Test seams passed to the watcher (backoff policies, fetch). */
  watcher?: Partial<Pick<MailWatcherOptions, "reconnectBackoff" | "postBackoff" | "fetch" | "random" | "env">>;
}

/** The registered service that runs the mail watcher inside the gateway. */
export function createMailService(opts: MailServiceOptions): ServiceRegistration {
  const { config, logger: log } = opts;
  let controller: AbortController | undefined;
  let running: Promise<void> | undefined;

  return {
    id: MAIL_SERVICE_ID,
    start() {
      const mail = config.mail;
      if (!mail) {
        log.warn("hooks.mail.autoStart needs hooks.mail; run `gateway webhooks mail setup` first");
        return;
      }
      // Resolved with the config: hooks.mail.hookUrl, else this gateway's own bind, port and hooks.path.
      const hookUrl = mail.hookUrl;
      controller = new AbortController();
      const watcher = createMailWatcher({
        mail,
        token: config.token,
        hookUrl,
        stateDir: opts.stateDir,
        logger: log,
        maxBodyBytes: config.maxBodyBytes,
        configDir: opts.configDir,
        ...opts.watcher,
      });
      log.info("mail watcher starting", { host: mail.imap.host, mailbox: mail.imap.mailbox, hookUrl });
      running = watcher.run(controller.signal).then(
        (s) => {
          log.info("mail watcher stopped", { delivered: s.delivered, rejected: s.rejected, lastUid: s.lastUid });
        },
        (e: unknown) => {
          log.error("mail watcher stopped on an error", { code: isMailError(e) ? e.code : "error", error: (e as Error).message });
        },
      );
    },
    async stop() {
      controller?.abort();
      await running;
      controller = undefined;
      running = undefined;
    },
  };
}
