/**
 * Errors of the mail watcher and `mail setup`, one catalogue like the hook errors
 * (src/core/errors.ts): each entry has a stable `code` and a message template naming
 * what was wrong (the flag, key or server answer) — never a secret. Call sites pass
 * only the arguments: `mailErrors.portInvalid({ min: 1, max: 65535, got: "x" })`.
 */
import { createErrorCatalogue } from "../host-contract/error-catalogue";

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
  /** The hook answered 401/403/404/405 or a redirect (3xx): the token or URL is wrong; retrying cannot help. */
  | "hook_misconfigured"
  /** Another watcher holds the lock for this mailbox. */
  | "watcher_locked"
  /** The checkpoint file of the mailbox cannot be read as one; retrying cannot help. */
  | "checkpoint_unreadable"
  /** `--once`: the hook did not accept a batch within the allowed wait (the batch is kept for the next run). */
  | "hook_unreachable";

const SETUP_FIRST = "run `gateway webhooks mail setup`";
const MISSING_EXAMPLE = "e.g. gateway webhooks mail setup --host imap.example.com --user me@example.com --password-env MAIL_PASSWORD.";
const NOT_ACCEPTING = 'check hooks.mail.hookUrl, hooks.enabled and that "mail" is in hooks.presets.';
// Outlook.com takes no password over IMAP at all (OAuth2 only, docs/mail.md step 1): advising an app password there sent users in circles.
const APP_PASSWORD =
  "check the password in {passwordRef} (Gmail, Fastmail and iCloud want an app password; Outlook.com accepts no password, see docs/mail.md).";
const PASSWORD_REFERENCE_ONLY =
  "Put the password in an environment variable and pass --password-env NAME, or in a file only you can read (chmod 600) and pass --password-file PATH.";
const BATCH_KEPT = "the batch is kept and sent again, with the same Idempotency-Key, by the next run.";

/** The catalogue. `got` is the offered value, already shortened by the caller. */
export const MAIL_ERROR_CATALOGUE = {
  // `mail setup` flags and prompt answers
  hostInvalid: { code: "invalid_option", message: '--host must be a host name or IP address, e.g. imap.gmail.com (got "{got}").' },
  portInvalid: { code: "invalid_option", message: '--port must be an integer between {min} and {max} (got "{got}").' },
  tlsInvalid: { code: "invalid_option", message: '--tls must be one of {modes} (got "{got}").' },
  userInvalid: { code: "invalid_option", message: '--user must be the IMAP login (usually your e-mail address) on one line (got "{got}").' },
  mailboxInvalid: { code: "invalid_option", message: '--mailbox must be a mailbox name such as INBOX (got "{got}").' },
  passwordEnvInvalid: {
    code: "invalid_option",
    message: '--password-env must be an environment variable name (letters, digits and _, not starting with a digit) (got "{got}").',
  },
  passwordFileInvalid: { code: "invalid_option", message: '--password-file must be the path of a file holding the password (got "{got}").' },
  hookUrlInvalid: { code: "invalid_option", message: '--hook-url must be an http:// or https:// URL, e.g. http://127.0.0.1:18789/hooks/mail (got "{got}").' },
  hookUrlNotHttp: { code: "invalid_option", message: '--hook-url must be an http:// or https:// URL (got "{got}").' },
  hookUrlWithCredentials: {
    code: "invalid_option",
    message: '--hook-url must not carry credentials (the watcher sends the hook token in a header) (got "…").',
  },
  maxBytesInvalid: { code: "invalid_option", message: '--max-bytes must be an integer between {min} and {max} (got "{got}").' },
  yesNoInvalid: { code: "invalid_option", message: '{flag} must be yes or no (got "{got}").' },
  passwordSourceConflict: { code: "invalid_option", message: "Use only one of --password-env and --password-file." },
  answerMissing: { code: "invalid_option", message: `Missing {names}: pass it as flags (no terminal to ask on), ${MISSING_EXAMPLE}` },
  answersMissing: { code: "invalid_option", message: `Missing {names}: pass them as flags (no terminal to ask on), ${MISSING_EXAMPLE}` },
  plainPasswordRefused: {
    code: "plain_password_refused",
    message: `Refusing to store a plain-text IMAP password: setup only writes a reference to it. ${PASSWORD_REFERENCE_ONLY}`,
  },

  // `mail run` flags and the config it needs
  sinceInvalid: { code: "invalid_option", message: '--since must be a date (YYYY-MM-DD) or a message UID (a positive integer) (got "{got}").' },
  maxWaitWithoutOnce: { code: "invalid_option", message: "--max-wait only applies with --once (without it, run retries until the gateway is back)." },
  maxWaitInvalid: { code: "invalid_option", message: '--max-wait must be a whole number of seconds from 0 to 86400 (got "{got}").' },
  mailNotConfigured: { code: "not_configured", message: `hooks.mail is not configured in {where}; ${SETUP_FIRST} first.` },
  hooksNotEnabled: {
    code: "not_configured",
    message: `hooks.enabled is not true in {where}, so there is no hook to post to; ${SETUP_FIRST} (it enables hooks).`,
  },

  // The config file `mail setup` edits
  configUnreadable: { code: "config_file", message: "Cannot read the config file {file} ({errno})." },
  configNotJson: { code: "config_file", message: "The config file {file} is not valid JSON/JSON5 ({reason}); fix it before running setup." },
  configNotObject: { code: "config_file", message: "The config file {file} must contain a JSON object at the top level." },
  configUnwritable: { code: "config_file", message: "Cannot write the config file {file} ({errno})." },
  sectionUnwritable: { code: "config_file", message: "The host's config writer refused to write {location}: {reason}" },
  configRefused: { code: "config_file", message: "The updated config would be refused by the gateway, so nothing was written: {reason}" },

  // The IMAP password reference
  passwordEnvUnset: {
    code: "password_unavailable",
    message: "hooks.mail.imap.password refers to environment variable {name}, which is not set (or empty) for this process.",
  },
  passwordFileUnreadable: { code: "password_unavailable", message: "hooks.mail.imap.password refers to file {file}, which cannot be read ({errno})." },
  passwordFileEmpty: { code: "password_unavailable", message: "hooks.mail.imap.password file {file} is empty." },

  // The IMAP server (`server` is host:port)
  imapLoginRejected: { code: "imap_auth_failed", message: `The IMAP server {server} rejected the login for user "{user}"; ${APP_PASSWORD}` },
  imapLoginRejectedSaying: {
    code: "imap_auth_failed",
    message: `The IMAP server {server} rejected the login for user "{user}" (server said: {said}); ${APP_PASSWORD}`,
  },
  imapMailboxMissing: {
    code: "imap_mailbox_missing",
    message: 'The mailbox "{mailbox}" does not exist for user "{user}" on {server}; check hooks.mail.imap.mailbox.',
  },
  imapTlsFailed: {
    code: "imap_connection",
    message: 'TLS with the IMAP server {server} failed ({reason}); check hooks.mail.imap.tls ("tls" for port 993, "starttls" for 143).',
  },
  imapUnusable: { code: "imap_connection", message: "Cannot use the IMAP server {server}: {reason}." },
  imapUnusableSaying: { code: "imap_connection", message: "Cannot use the IMAP server {server}: {reason} (server said: {said})." },

  // The watcher lock and the hook it posts to
  watcherRunning: {
    code: "watcher_locked",
    message: "Another mail watcher (pid {pid}) is already running for {user} on {host}/{mailbox}; stop it first (lock file {file}).",
  },
  watcherLockContended: { code: "watcher_locked", message: "Could not take the mail watcher lock {file}; another watcher keeps taking it." },
  checkpointUnknownFormat: { code: "checkpoint_unreadable", message: "mail checkpoint {file} has an unknown format; move it away to start fresh." },
  hookRefusedToken: {
    code: "hook_misconfigured",
    message: "The hook at {hookUrl} refused the token (HTTP {status}); check hooks.token and restart the gateway after changing it.",
  },
  hookRefusesMail: { code: "hook_misconfigured", message: `The hook at {hookUrl} does not accept mail (HTTP {status}); ${NOT_ACCEPTING}` },
  hookRefusesMailWithCode: { code: "hook_misconfigured", message: `The hook at {hookUrl} does not accept mail (HTTP {status} {code}); ${NOT_ACCEPTING}` },
  hookRedirects: {
    code: "hook_misconfigured",
    message:
      "The hook at {hookUrl} answered with a redirect (HTTP {status} to {location}); set hooks.mail.hookUrl to the URL that accepts the post (the watcher does not follow redirects).",
  },
  hookUnreachable: {
    code: "hook_unreachable",
    message: `The hook at {hookUrl} did not accept the mail batch within {seconds} s ({attempts} attempt(s), last: {last}); ${BATCH_KEPT}`,
  },
} as const satisfies Record<string, { code: MailErrorCode; message: string }>;

export class MailError extends Error {
  readonly code: MailErrorCode;

  /** Made by `mailErrors.<name>(…)` only, so every message comes from the catalogue. */
  constructor(code: MailErrorCode, message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "MailError";
    this.code = code;
  }
}

/** One factory per catalogue entry: `mailErrors.<name>(args?, { cause }?)`. */
export const mailErrors = createErrorCatalogue(
  MAIL_ERROR_CATALOGUE,
  ({ entry, message }, opts: { cause?: unknown } | undefined) => new MailError(entry.code, message, opts),
);

/** Type guard for MailError (also across module copies, by name + code). */
export function isMailError(e: unknown, code?: MailErrorCode): e is MailError {
  const ok = e instanceof Error && e.name === "MailError" && typeof (e as MailError).code === "string";
  return ok && (code === undefined || (e as MailError).code === code);
}
