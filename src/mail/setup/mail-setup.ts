/**
 * `gateway webhooks mail setup`: collects the IMAP settings (flags, else prompts on a
 * terminal, else the values already in the config), refuses plain-text passwords,
 * applies them to the config file (see apply-mail-setup.ts), checks the result the way
 * the gateway will, writes it, and reports what changed and what to run next.
 */
import fs from "node:fs";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { resolveConfig } from "../../config/resolve";
import { IMAP_DEFAULT_PORTS, MAIL_DEFAULTS } from "../../config/rules";
import type { MailTlsMode } from "../../config/types";
import { applyMailSetup } from "./apply-mail-setup";
import { readRawConfigFile, writeRawConfigFile } from "./config-file";
import { defaultMailHookUrl } from "../../config/mail-hook-url";
import { MailError } from "../mail-error";
import { createPrompter, type Prompter } from "./setup-prompts";
import * as parse from "./setup-answers";
import type { MailSetupAnswers } from "./setup-answers";

/** Flags of `mail setup` as commander delivers them. */
export interface MailSetupFlags {
  host?: string;
  port?: string;
  tls?: string;
  user?: string;
  passwordEnv?: string;
  passwordFile?: string;
  /** Only declared to refuse it with a clear message. */
  password?: string;
  mailbox?: string;
  hookUrl?: string;
  includeBody?: boolean;
  maxBytes?: string;
  autoStart?: boolean;
  json?: boolean;
  /** `--no-input` sets this to false: never prompt. */
  input?: boolean;
}

export interface MailSetupContext {
  /** `api.configPath`; undefined when the gateway runs on its demo default. */
  configPath?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Prompt for missing values (stdin is a TTY and --no-input was not given). */
  interactive: boolean;
  input?: Readable;
  /** Where prompts go (stderr, so --json output stays clean). */
  promptOutput?: Writable;
  generateToken?: () => string;
}

export interface MailSetupResult {
  configPath: string;
  /** The config file did not exist and was created. */
  created: boolean;
  /** Whether the file was written (false when nothing changed). */
  written: boolean;
  changes: string[];
  tokenCreated: boolean;
  mail: "created" | "updated" | "unchanged";
  answers: MailSetupAnswers;
  /** Effective auto-start after setup. */
  autoStart: boolean;
  warnings: string[];
  /** Commands to run next. */
  next: string[];
  backup?: string;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

/** Runs setup; throws MailError on invalid input (nothing is written then). */
export async function runMailSetup(flags: MailSetupFlags, ctx: MailSetupContext): Promise<MailSetupResult> {
  if (flags.password !== undefined) throw new MailError("plain_password_refused", parse.PLAIN_PASSWORD_REFUSED);
  if (flags.passwordEnv !== undefined && flags.passwordFile !== undefined) {
    throw new MailError("invalid_option", "Use only one of --password-env and --password-file.");
  }
  const file = ctx.configPath ?? path.resolve(ctx.cwd, "gateway.config.json");
  const current = readRawConfigFile(file);
  const existing = obj(obj(current.raw.hooks).mail);
  const existingImap = obj(existing.imap);
  const prompter: Prompter | undefined = ctx.interactive && ctx.input && ctx.promptOutput ? createPrompter(ctx.input, ctx.promptOutput) : undefined;

  const missing: string[] = [];
  /** flag → parse; else prompt (default shown); else default; else record as missing. */
  async function value<T>(flag: string | undefined, parser: (s: string) => T, question: string, def: string | undefined, required: string | undefined): Promise<T | undefined> {
    if (flag !== undefined) return parser(flag);
    if (prompter) return prompter.ask(question, parser, def);
    if (def !== undefined) return parser(def);
    if (required) missing.push(required);
    return undefined;
  }

  let answers: MailSetupAnswers;
  try {
    if (prompter) ctx.promptOutput!.write("Mail watcher setup — press Enter to keep the value in brackets.\n");
    const host = await value(flags.host, parse.parseHost, "IMAP server host (e.g. imap.gmail.com)", str(existingImap.host), "--host");
    const tls = (await value(flags.tls, parse.parseTls, "TLS mode: tls (port 993), starttls (port 143) or none", str(existingImap.tls) ?? MAIL_DEFAULTS.tls, undefined)) as MailTlsMode;
    const existingPort = typeof existingImap.port === "number" && existingImap.tls === tls ? String(existingImap.port) : undefined;
    const port = (await value(flags.port, parse.parsePort, "IMAP port", existingPort ?? String(IMAP_DEFAULT_PORTS[tls]), undefined)) as number;
    const user = await value(flags.user, parse.parseUser, "IMAP user (usually your e-mail address)", str(existingImap.user), "--user");

    let password: MailSetupAnswers["password"] | undefined;
    if (flags.passwordEnv !== undefined) password = parse.parsePasswordEnv(flags.passwordEnv);
    else if (flags.passwordFile !== undefined) password = parse.parsePasswordFile(flags.passwordFile);
    else {
      const ref = obj(existingImap.password);
      const def = typeof ref.env === "string" ? `env:${ref.env}` : typeof ref.file === "string" ? `file:${ref.file}` : undefined;
      password = await value(
        undefined,
        parse.parsePasswordSource,
        "Where is the password? env:NAME (environment variable) or file:PATH (never type the password itself)",
        def,
        "--password-env NAME or --password-file PATH",
      );
    }
    if (password && "file" in password) password = { file: path.resolve(ctx.cwd, password.file) };

    const mailbox = (await value(flags.mailbox, parse.parseMailbox, "Mailbox to watch", str(existingImap.mailbox) ?? MAIL_DEFAULTS.mailbox, undefined)) as string;
    const hookUrl = (await value(flags.hookUrl, parse.parseHookUrl, "Hook URL the watcher posts to", str(existing.hookUrl) ?? defaultMailHookUrl(current.raw), undefined)) as string;
    const yesNo = (flag: string) => (s: string) => parse.parseYesNo(flag, s);
    const includeBody =
      flags.includeBody ??
      ((await value(undefined, yesNo("--include-body"), "Include the message body (plain text) besides the snippet? (yes/no)", typeof existing.includeBody === "boolean" ? (existing.includeBody ? "yes" : "no") : "no", undefined)) as boolean);
    const maxBytes = (await value(flags.maxBytes, parse.parseMaxBytes, "Max bytes of text per message", typeof existing.maxBytes === "number" ? String(existing.maxBytes) : String(MAIL_DEFAULTS.maxBytes), undefined)) as number;
    const autoStart =
      flags.autoStart ??
      (prompter
        ? await prompter.ask("Let the gateway run the watcher itself (autoStart)? (yes/no)", yesNo("--auto-start"), existing.autoStart === true ? "yes" : "no")
        : undefined);

    if (missing.length > 0) {
      throw new MailError(
        "invalid_option",
        `Missing ${missing.join(", ")}: pass ${missing.length > 1 ? "them" : "it"} as flags (no terminal to ask on), e.g. gateway webhooks mail setup --host imap.example.com --user me@example.com --password-env MAIL_PASSWORD.`,
      );
    }
    answers = { host: host!, port, tls, user: user!, password: password!, mailbox, hookUrl, includeBody, maxBytes, ...(autoStart === undefined ? {} : { autoStart }) };
  } finally {
    prompter?.close();
  }

  const applied = applyMailSetup(current.raw, answers, { generateToken: ctx.generateToken });
  checkAcceptedByPlugin(applied.config, file, ctx.env);

  const warnings = passwordWarnings(answers.password, ctx.env);
  if (answers.tls === "none" && !isLoopback(answers.host)) {
    warnings.push(`tls "none" sends the IMAP password unencrypted to ${answers.host}; use "tls" (port 993) or "starttls" (port 143).`);
  }
  if (!ctx.configPath) {
    warnings.push(`No config file was in use (the gateway's demo default), so setup ${current.existed ? "updated" : "created"} ${file}; the gateway reads it when started from ${path.dirname(file)} or with --config.`);
  }

  // A plain-text hook token must not sit in a file every user can read. A group-only mode
  // (e.g. 0640 for a service group) is an operator's deliberate choice and is kept.
  const readableByOthers = current.mode !== undefined && (current.mode & 0o007) !== 0;
  const mode = applied.tokenCreated && readableByOthers ? 0o600 : undefined;
  if (mode !== undefined) {
    applied.changes.push(`permissions of ${file} tightened from ${octal(current.mode!)} to 0600 (it now holds the hook token)`);
  } else if (readableByOthers && typeof obj(applied.config.hooks).token === "string") {
    warnings.push(`${file} holds hooks.token in plain text and can be read by other users; run chmod 600 ${shellQuote(file)}.`);
  }

  let written = false;
  let backup: string | undefined;
  if (!current.existed || applied.changes.length > 0) {
    backup = writeRawConfigFile(current, applied.config, mode).backup;
    written = true;
    if (backup) warnings.push(`The config file used JSON5 syntax (comments, trailing commas…) and was rewritten as plain JSON; the original is kept as ${backup}.`);
  }

  const autoStartNow = obj(obj(applied.config.hooks).mail).autoStart === true;
  const cfg = `--config ${shellQuote(file)}`;
  const next = autoStartNow
    ? [`gateway start ${cfg}`]
    : [`gateway start ${cfg}`, `gateway webhooks mail run ${cfg}`];
  return {
    configPath: file,
    created: !current.existed,
    written,
    changes: applied.changes,
    tokenCreated: applied.tokenCreated,
    mail: applied.mail,
    answers,
    autoStart: autoStartNow,
    warnings,
    next,
    ...(backup ? { backup } : {}),
  };
}

/** `0o644` → "0644". */
function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}

/** Runs the plugin's own config resolution on the result, so setup never writes a config the gateway would refuse. */
function checkAcceptedByPlugin(config: Obj, file: string, env: NodeJS.ProcessEnv): void {
  const probe = JSON.parse(JSON.stringify(config)) as Obj;
  const hooks = obj(probe.hooks);
  // A token reference may only resolve where the gateway runs; validate the rest with a stand-in.
  if (typeof hooks.token !== "string") hooks.token = "x".repeat(32);
  try {
    resolveConfig(probe, { configDir: path.dirname(file), env });
  } catch (e) {
    throw new MailError("config_file", `The updated config would be refused by the gateway, so nothing was written: ${(e as Error).message}`, { cause: e });
  }
}

function passwordWarnings(ref: MailSetupAnswers["password"], env: NodeJS.ProcessEnv): string[] {
  if ("env" in ref) {
    return env[ref.env] ? [] : [`Environment variable ${ref.env} is not set in this shell; set it (export ${ref.env}=…) wherever the watcher runs.`];
  }
  try {
    const st = fs.statSync(ref.file);
    return (st.mode & 0o077) !== 0 ? [`The password file ${ref.file} can be read by other users; run chmod 600 ${shellQuote(ref.file)}.`] : [];
  } catch {
    return [`The password file ${ref.file} does not exist yet; create it (one line, chmod 600) before starting the watcher.`];
  }
}
