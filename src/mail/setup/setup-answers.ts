/**
 * The answers `mail setup` collects (from flags, prompts or the existing config) and
 * the validation of each one: a clear sentence naming the flag and the rule.
 */
import type { MailConfig, MailTlsMode } from "../../config/types";
import { BOUNDS, TLS_MODES } from "../../config/rules";
import { parsePort, portRule } from "../../host-contract/gateway-address";
import { MailError } from "../mail-error";

export interface MailSetupAnswers {
  host: string;
  port: number;
  tls: MailTlsMode;
  user: string;
  password: MailConfig["imap"]["password"];
  mailbox: string;
  hookUrl: string;
  includeBody: boolean;
  maxBytes: number;
  /** Only written when chosen (flag or prompt); otherwise the existing value / default stays. */
  autoStart?: boolean;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SINGLE_LINE = /^[^\u0000-\u001f\u007f]+$/;

function invalid(flag: string, rule: string, got: string): MailError {
  return new MailError("invalid_option", `${flag} ${rule} (got "${got.slice(0, 200)}").`);
}

export function parseHost(v: string): string {
  const s = v.trim();
  if (s === "" || /\s/.test(s) || s.includes("/")) throw invalid("--host", "must be a host name or IP address, e.g. imap.gmail.com", v);
  return s;
}

export function parseImapPort(v: string | number): number {
  const s = String(v).trim();
  const port = parsePort(s, 1);
  if (port === undefined) throw invalid("--port", portRule(1), s);
  return port;
}

export function parseTls(v: string): MailTlsMode {
  const s = v.trim().toLowerCase();
  if (!(TLS_MODES as readonly string[]).includes(s)) throw invalid("--tls", `must be one of ${TLS_MODES.join(", ")}`, v);
  return s as MailTlsMode;
}

export function parseUser(v: string): string {
  const s = v.trim();
  if (s === "" || !SINGLE_LINE.test(s)) throw invalid("--user", "must be the IMAP login (usually your e-mail address) on one line", v);
  return s;
}

export function parseMailbox(v: string): string {
  const s = v.trim();
  if (s === "" || !SINGLE_LINE.test(s)) throw invalid("--mailbox", "must be a mailbox name such as INBOX", v);
  return s;
}

export function parsePasswordEnv(v: string): { env: string } {
  const s = v.trim();
  if (!ENV_NAME.test(s)) throw invalid("--password-env", "must be an environment variable name (letters, digits and _, not starting with a digit)", v);
  return { env: s };
}

export function parsePasswordFile(v: string): { file: string } {
  const s = v.trim();
  if (s === "" || !SINGLE_LINE.test(s)) throw invalid("--password-file", "must be the path of a file holding the password", v);
  return { file: s };
}

export function parseHookUrl(v: string): string {
  const s = v.trim();
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw invalid("--hook-url", "must be an http:// or https:// URL, e.g. http://127.0.0.1:18789/hooks/mail", v);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("--hook-url", "must be an http:// or https:// URL", v);
  if (url.username || url.password || url.search.includes("token=")) throw invalid("--hook-url", "must not carry credentials (the watcher sends the hook token in a header)", "…");
  return s;
}

export function parseMaxBytes(v: string | number): number {
  const s = String(v).trim();
  const n = Number(s);
  const { min, max } = BOUNDS.mailMaxBytes;
  if (!/^\d+$/.test(s) || n < min || n > max) throw invalid("--max-bytes", `must be an integer between ${min} and ${max}`, s);
  return n;
}

/** y/yes/true/1 → true, n/no/false/0 → false. */
export function parseYesNo(flag: string, v: string): boolean {
  const s = v.trim().toLowerCase();
  if (["y", "yes", "true", "1", "on"].includes(s)) return true;
  if (["n", "no", "false", "0", "off"].includes(s)) return false;
  throw invalid(flag, "must be yes or no", v);
}

/** The message for a plain-text password, wherever it was offered. */
export const PLAIN_PASSWORD_REFUSED =
  "Refusing to store a plain-text IMAP password: setup only writes a reference to it. " +
  "Put the password in an environment variable and pass --password-env NAME, or in a file only you can read (chmod 600) and pass --password-file PATH.";

/**
 * Parses a prompt answer for the password source: `env:NAME` or `file:PATH`.
 * Anything else is treated as a typed password and refused (never echoed back).
 */
export function parsePasswordSource(v: string): MailConfig["imap"]["password"] {
  const s = v.trim();
  const m = /^(env|file):(.+)$/i.exec(s);
  if (!m) throw new MailError("plain_password_refused", PLAIN_PASSWORD_REFUSED);
  return m[1]!.toLowerCase() === "env" ? parsePasswordEnv(m[2]!) : parsePasswordFile(m[2]!);
}
