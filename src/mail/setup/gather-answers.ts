/**
 * Step 2 of `mail setup` — gather: every answer from its flag, else a prompt on a
 * terminal (Enter keeps the value shown in brackets), else the value already in the
 * config or the default. Whatever is still missing without a terminal is refused in
 * one message listing it all.
 */
import path from "node:path";
import { IMAP_DEFAULT_PORTS, MAIL_DEFAULTS } from "../../config/rules";
import type { MailTlsMode } from "../../config/types";
import { mailErrors } from "../mail-error";
import type { ExistingMailSettings } from "./read-setup-config";
import * as parse from "./setup-answers";
import type { MailSetupAnswers } from "./setup-answers";
import { createPrompter, type Prompter } from "./setup-prompts";
import type { MailSetupContext, MailSetupFlags } from "./setup-types";

/** Refuses flags that can never work, before anything is read: a plain password, two password sources. */
export function refuseConflictingFlags(flags: MailSetupFlags): void {
  if (flags.password !== undefined) throw mailErrors.plainPasswordRefused();
  if (flags.passwordEnv !== undefined && flags.passwordFile !== undefined) {
    throw mailErrors.passwordSourceConflict();
  }
}

type Ask = <T>(
  flag: string | undefined,
  parser: (s: string) => T,
  question: string,
  def: string | undefined,
  required: string | undefined,
) => Promise<T | undefined>;

/** flag → parse; else prompt (default shown); else default; else recorded in `missing`. */
function asker(prompter: Prompter | undefined, missing: string[]): Ask {
  return async (flag, parser, question, def, required) => {
    if (flag !== undefined) return parser(flag);
    if (prompter) return prompter.ask(question, parser, def);
    if (def !== undefined) return parser(def);
    if (required) missing.push(required);
    return undefined;
  };
}

async function passwordAnswer(flags: MailSetupFlags, existing: ExistingMailSettings, ask: Ask, cwd: string): Promise<MailSetupAnswers["password"] | undefined> {
  let password: MailSetupAnswers["password"] | undefined;
  if (flags.passwordEnv !== undefined) password = parse.parsePasswordEnv(flags.passwordEnv);
  else if (flags.passwordFile !== undefined) password = parse.parsePasswordFile(flags.passwordFile);
  else {
    password = await ask(
      undefined,
      parse.parsePasswordSource,
      "Where is the password? env:NAME (environment variable) or file:PATH (never type the password itself)",
      existing.password,
      "--password-env NAME or --password-file PATH",
    );
  }
  return password && "file" in password ? { file: path.resolve(cwd, password.file) } : password;
}

/** Collects the answers; throws MailError for an invalid flag or what is missing. */
export async function gatherAnswers(flags: MailSetupFlags, existing: ExistingMailSettings, ctx: MailSetupContext): Promise<MailSetupAnswers> {
  const prompter = ctx.interactive && ctx.input && ctx.promptOutput ? createPrompter(ctx.input, ctx.promptOutput) : undefined;
  const missing: string[] = [];
  const ask = asker(prompter, missing);
  const yesNo = (flag: string) => (s: string) => parse.parseYesNo(flag, s);
  try {
    if (prompter) ctx.promptOutput!.write("Mail watcher setup — press Enter to keep the value in brackets.\n");
    const host = await ask(flags.host, parse.parseHost, "IMAP server host (e.g. imap.gmail.com)", existing.host, "--host");
    const tls = (await ask(
      flags.tls,
      parse.parseTls,
      "TLS mode: tls (port 993), starttls (port 143) or none",
      existing.tls ?? MAIL_DEFAULTS.tls,
      undefined,
    )) as MailTlsMode;
    const existingPort = existing.port !== undefined && existing.tls === tls ? String(existing.port) : undefined;
    const port = (await ask(flags.port, parse.parseImapPort, "IMAP port", existingPort ?? String(IMAP_DEFAULT_PORTS[tls]), undefined)) as number;
    const user = await ask(flags.user, parse.parseUser, "IMAP user (usually your e-mail address)", existing.user, "--user");
    const password = await passwordAnswer(flags, existing, ask, ctx.cwd);
    const mailbox = (await ask(flags.mailbox, parse.parseMailbox, "Mailbox to watch", existing.mailbox ?? MAIL_DEFAULTS.mailbox, undefined)) as string;
    const hookUrl = (await ask(flags.hookUrl, parse.parseHookUrl, "Hook URL the watcher posts to", existing.hookUrl, undefined)) as string;
    const includeBody =
      flags.includeBody ??
      ((await ask(
        undefined,
        yesNo("--include-body"),
        "Include the message body (plain text) besides the snippet? (yes/no)",
        (existing.includeBody ?? MAIL_DEFAULTS.includeBody) ? "yes" : "no",
        undefined,
      )) as boolean);
    const maxBytes = (await ask(
      flags.maxBytes,
      parse.parseMaxBytes,
      "Max bytes of text per message",
      String(existing.maxBytes ?? MAIL_DEFAULTS.maxBytes),
      undefined,
    )) as number;
    const autoStart =
      flags.autoStart ??
      (prompter
        ? await prompter.ask("Let the gateway run the watcher itself (autoStart)? (yes/no)", yesNo("--auto-start"), existing.autoStart ? "yes" : "no")
        : undefined);

    if (missing.length > 0) {
      throw (missing.length > 1 ? mailErrors.answersMissing : mailErrors.answerMissing)({ names: missing.join(", ") });
    }
    return {
      host: host!,
      port,
      tls,
      user: user!,
      password: password!,
      mailbox,
      hookUrl,
      includeBody,
      maxBytes,
      ...(autoStart === undefined ? {} : { autoStart }),
    };
  } finally {
    prompter?.close();
  }
}
