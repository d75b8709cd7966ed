/**
 * A mail watcher wired to a MailFixture (its dovecot, receiver and temp dir) with a
 * recording logger and short backoffs; each test file passes what it varies.
 */
import { createMailWatcher, type MailWatcher, type MailWatcherOptions } from "../../../src/mail/watcher/mail-watcher";
import type { MailConfig } from "../../../src/config/types";
import type { DovecotServer } from "./dovecot";
import type { MailFixture } from "./mail-fixture";
import { mailConfigFor, PASSWORD_ENV } from "./mail-config";
import { createTestLogger } from "./test-logger";

export interface TestWatcherOptions {
  token: string;
  /** `hooks.mail` overrides (see mailConfigFor). */
  mail?: Partial<MailConfig>;
  /** The server to log in to (default: the fixture's dovecot). */
  server?: Pick<DovecotServer, "port" | "user" | "password">;
  /** Watcher options replacing the defaults below. */
  extra?: Partial<MailWatcherOptions>;
}

/** Builds (does not start) a watcher; `log` records what it logs. */
export function testWatcher(fx: MailFixture, opts: TestWatcherOptions): { w: MailWatcher; log: ReturnType<typeof createTestLogger> } {
  const server = opts.server ?? fx.imap;
  const log = createTestLogger();
  const w = createMailWatcher({
    mail: mailConfigFor(server, opts.mail),
    token: opts.token,
    hookUrl: fx.receiver.url,
    stateDir: fx.dir,
    logger: log.logger,
    maxBodyBytes: 262144,
    env: { [PASSWORD_ENV]: server.password },
    postBackoff: { initialMs: 20, maxMs: 100 },
    reconnectBackoff: { initialMs: 50, maxMs: 200 },
    ...opts.extra,
  });
  return { w, log };
}
