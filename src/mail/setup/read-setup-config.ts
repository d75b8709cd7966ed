/**
 * Step 1 of `mail setup` — read: which config file to edit (a new
 * `./gateway.config.json` when the gateway runs on its demo default), its current
 * content, and the `hooks.mail` values already in it, offered as defaults on a rerun.
 * With a host's section store (inside OpenClaw) the section comes from the host's
 * config instead, under `hooks` as the steps after read it.
 */
import path from "node:path";
import { defaultMailHookUrl } from "../../config/mail-hook-url";
import { rawSection } from "../../config/raw-section";
import { readRawConfigFile, type RawConfigFile } from "./config-file";
import type { MailSetupContext } from "./setup-types";

/** The values of `hooks.mail` in the file (undefined when absent or blank). */
export interface ExistingMailSettings {
  host?: string;
  tls?: string;
  /** Offered as the default only while the TLS mode stays the configured one. */
  port?: number;
  user?: string;
  /** The password reference as a prompt answer: `env:NAME` or `file:PATH`. */
  password?: string;
  mailbox?: string;
  /** `hooks.mail.hookUrl`, else this config's gateway address (src/config/mail-hook-url.ts). */
  hookUrl: string;
  includeBody?: boolean;
  maxBytes?: number;
  autoStart: boolean;
}

export interface SetupConfig {
  file: string;
  current: RawConfigFile;
  existing: ExistingMailSettings;
}

const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

/** What a rerun of setup starts from; `addressed`: the config the default hook URL is derived from (default `raw`). */
export function existingMailSettings(raw: Readonly<Record<string, unknown>>, addressed: Readonly<Record<string, unknown>> = raw): ExistingMailSettings {
  const mail = rawSection(rawSection(raw, "hooks"), "mail");
  const imap = rawSection(mail, "imap");
  const ref = rawSection(imap, "password");
  return {
    host: text(imap.host),
    tls: text(imap.tls),
    port: typeof imap.port === "number" ? imap.port : undefined,
    user: text(imap.user),
    password: typeof ref.env === "string" ? `env:${ref.env}` : typeof ref.file === "string" ? `file:${ref.file}` : undefined,
    mailbox: text(imap.mailbox),
    hookUrl: text(mail.hookUrl) ?? defaultMailHookUrl(addressed),
    includeBody: typeof mail.includeBody === "boolean" ? mail.includeBody : undefined,
    maxBytes: typeof mail.maxBytes === "number" ? mail.maxBytes : undefined,
    autoStart: mail.autoStart === true,
  };
}

/** Reads the config file setup edits; throws MailError when it cannot be read or parsed. */
export function readSetupConfig(ctx: Pick<MailSetupContext, "configPath" | "cwd" | "store">): SetupConfig {
  if (ctx.store) {
    const section = ctx.store.read();
    const current: RawConfigFile = { file: ctx.store.location, existed: true, raw: { hooks: section }, json5Only: false };
    return { file: ctx.store.location, current, existing: existingMailSettings(current.raw, ctx.store.snapshotWith(section)) };
  }
  const file = ctx.configPath ?? path.resolve(ctx.cwd, "gateway.config.json");
  const current = readRawConfigFile(file);
  return { file, current, existing: existingMailSettings(current.raw) };
}
