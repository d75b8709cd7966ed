/**
 * The answers `mail setup` collects (from flags, prompts or the existing config) and
 * the validation of each one: a clear sentence naming the flag and the rule.
 */
import type { MailConfig, MailTlsMode } from "../../config/types";
import { BOUNDS, TLS_MODES } from "../../config/rules";
import { hookUrlCredential } from "../../config/mail-hook-url";
import { parsePort } from "../../host-contract/gateway-address";
import { mailErrors } from "../mail-error";

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

/** The offered value as an error message shows it. */
const shown = (got: string): string => got.slice(0, 200);

export function parseHost(v: string): string {
  const s = v.trim();
  if (s === "" || /\s/.test(s) || s.includes("/")) throw mailErrors.hostInvalid({ got: shown(v) });
  return s;
}

export function parseImapPort(v: string | number): number {
  const s = String(v).trim();
  const port = parsePort(s, 1);
  if (port === undefined) throw mailErrors.portInvalid({ ...BOUNDS.port, got: shown(s) });
  return port;
}

export function parseTls(v: string): MailTlsMode {
  const s = v.trim().toLowerCase();
  if (!(TLS_MODES as readonly string[]).includes(s)) throw mailErrors.tlsInvalid({ modes: TLS_MODES.join(", "), got: shown(v) });
  return s as MailTlsMode;
}

export function parseUser(v: string): string {
  const s = v.trim();
  if (s === "" || !SINGLE_LINE.test(s)) throw mailErrors.userInvalid({ got: shown(v) });
  return s;
}

export function parseMailbox(v: string): string {
  const s = v.trim();
  if (s === "" || !SINGLE_LINE.test(s)) throw mailErrors.mailboxInvalid({ got: shown(v) });
  return s;
}

export function parsePasswordEnv(v: string): { env: string } {
  const s = v.trim();
  if (!ENV_NAME.test(s)) throw mailErrors.passwordEnvInvalid({ got: shown(v) });
  return { env: s };
}

export function parsePasswordFile(v: string): { file: string } {
  const s = v.trim();
  if (s === "" || !SINGLE_LINE.test(s)) throw mailErrors.passwordFileInvalid({ got: shown(v) });
  return { file: s };
}

export function parseHookUrl(v: string): string {
  const s = v.trim();
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw mailErrors.hookUrlInvalid({ got: shown(v) });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw mailErrors.hookUrlNotHttp({ got: shown(v) });
  if (hookUrlCredential(url)) throw mailErrors.hookUrlWithCredentials();
  return s;
}

export function parseMaxBytes(v: string | number): number {
  const s = String(v).trim();
  const n = Number(s);
  const { min, max } = BOUNDS.mailMaxBytes;
  if (!/^\d+$/.test(s) || n < min || n > max) throw mailErrors.maxBytesInvalid({ min, max, got: shown(s) });
  return n;
}

/** y/yes/true/1 → true, n/no/false/0 → false. */
export function parseYesNo(flag: string, v: string): boolean {
  const s = v.trim().toLowerCase();
  if (["y", "yes", "true", "1", "on"].includes(s)) return true;
  if (["n", "no", "false", "0", "off"].includes(s)) return false;
  throw mailErrors.yesNoInvalid({ flag, got: shown(v) });
}

/**
 * Parses a prompt answer for the password source: `env:NAME` or `file:PATH`.
 * Anything else is treated as a typed password and refused (never echoed back).
 */
export function parsePasswordSource(v: string): MailConfig["imap"]["password"] {
  const s = v.trim();
  const m = /^(env|file):(.+)$/i.exec(s);
  if (!m) throw mailErrors.plainPasswordRefused();
  return m[1]!.toLowerCase() === "env" ? parsePasswordEnv(m[2]!) : parsePasswordFile(m[2]!);
}
