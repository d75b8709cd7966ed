/**
 * Errors of the mail watcher and `mail setup`. Each carries a stable `code` and one
 * sentence naming what was wrong (the flag, key or server answer) — never a secret.
 */

export type MailErrorCode =
  /** A setup flag or prompt answer is invalid (names the flag and the rule). */
  | "invalid_option"
  /** A plain-text password was offered; only env/file references are stored. */
  | "plain_password_refused"
  /** The config file could not be read, parsed or written. */
  | "config_file"
  /** `hooks.mail` (or the hook token) is missing from the config. */
  | "not_configured"
  /** The password reference could not be resolved (env var unset, file unreadable). */
  | "password_unavailable"
  /** The IMAP server rejected the login. */
  | "imap_auth_failed"
  /** The IMAP server could not be reached or the connection failed. */
  | "imap_connection"
  /** The configured mailbox does not exist. */
  | "imap_mailbox_missing"
  /** The hook answered 401/403/404/405: the token or URL is wrong; retrying cannot help. */
  | "hook_misconfigured"
  /** Another watcher holds the lock for this mailbox. */
  | "watcher_locked"
  /** `--once`: the hook did not accept a batch within the allowed wait (the batch is kept for the next run). */
  | "hook_unreachable";

export class MailError extends Error {
  readonly code: MailErrorCode;

  constructor(code: MailErrorCode, message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "MailError";
    this.code = code;
  }
}

/** Type guard for MailError (also across module copies, by name + code). */
export function isMailError(e: unknown, code?: MailErrorCode): e is MailError {
  const ok = e instanceof Error && e.name === "MailError" && typeof (e as MailError).code === "string";
  return ok && (code === undefined || (e as MailError).code === code);
}
