/** A resolved `hooks.mail` for tests, pointing at a throwaway dovecot. */
import type { MailConfig } from "../../../src/config/types";
import type { DovecotServer } from "./dovecot";

export const PASSWORD_ENV = "IW_TEST_IMAP_PASSWORD";

export function mailConfigFor(server: Pick<DovecotServer, "port" | "user">, overrides: Partial<MailConfig> = {}): MailConfig {
  return {
    imap: { host: "127.0.0.1", port: server.port, tls: "none", user: server.user, password: { env: PASSWORD_ENV }, mailbox: "INBOX" },
    hookUrl: "http://127.0.0.1:18789/hooks/mail",
    includeBody: false,
    maxBytes: 4096,
    maxMessages: 10,
    pollSeconds: 30,
    autoStart: false,
    deliver: true,
    channel: "last",
    allowUnsafeExternalContent: false,
    ...overrides,
  };
}
