/**
 * Step 5 of `mail setup` — report: the result (what changed, warnings, the commands
 * to run next), as a human-readable summary or the `--json` object. Neither ever
 * contains the hook token (the password is only ever a reference).
 */
import { rawSection } from "../../config/raw-section";
import { describePasswordRef } from "../password";
import type { AppliedSetup } from "./apply-setup";
import type { SetupWrite } from "./config-file";
import type { SetupConfig } from "./read-setup-config";
import type { MailSetupAnswers } from "./setup-answers";
import { shellQuote } from "../../host-contract/shell-quote";
import type { MailSetupResult } from "./setup-types";

/** The result of a setup run from what each step produced. */
export function setupResult(
  config: SetupConfig,
  answers: MailSetupAnswers,
  applied: AppliedSetup,
  write: SetupWrite,
  hostCommands?: { restart: string; mailRun: string },
): MailSetupResult {
  const autoStart = rawSection(rawSection(applied.config, "hooks"), "mail").autoStart === true;
  const cfg = `--config ${shellQuote(config.file)}`;
  return {
    configPath: config.file,
    created: !config.current.existed,
    written: write.written,
    changes: applied.changes,
    tokenCreated: applied.tokenCreated,
    mail: applied.mail,
    answers,
    autoStart,
    warnings: [...applied.warnings, ...write.warnings],
    next: hostCommands
      ? [hostCommands.restart, ...(autoStart ? [] : [hostCommands.mailRun])]
      : autoStart
        ? [`gateway start ${cfg}`]
        : [`gateway start ${cfg}`, `gateway webhooks mail run ${cfg}`],
    ...(write.backup ? { backup: write.backup } : {}),
  };
}

/**
 * The human-readable report of a setup run. `named` names the plugin's keys where the host keeps its section
 * (config-keys.ts): only in the plugin's own sentences — the settings echoed back are the user's.
 */
export function formatSetupSummary(r: MailSetupResult, named: (sentence: string) => string = (s) => s): string {
  const a = r.answers;
  const lines = [
    r.written
      ? `Mail watcher ${r.mail === "created" ? "configured" : "updated"} in ${r.configPath}${r.created ? " (new file)" : ""}.`
      : named(`Nothing to change in ${r.configPath}; hooks.mail is already as requested.`),
    `  IMAP        ${a.user} @ ${a.host}:${a.port} (${a.tls}), mailbox ${a.mailbox}`,
    `  Password    read from ${describePasswordRef(a.password)} (never stored in the config)`,
    `  Hook URL    ${a.hookUrl}`,
    `  Content     ${a.includeBody ? "snippet and body" : "snippet only"}, at most ${a.maxBytes} bytes of text per message`,
    `  Auto-start  ${r.autoStart ? "on (the gateway runs the watcher itself)" : "off"}`,
  ];
  if (r.changes.length > 0) lines.push("Changes:", ...r.changes.map((c) => `  - ${named(c)}`));
  if (r.warnings.length > 0) lines.push("Warnings:", ...r.warnings.map((w) => `  ! ${named(w)}`));
  const envHint = "env" in a.password ? `  export ${a.password.env}=<your IMAP or app password>\n` : "";
  lines.push(
    "Next:",
    envHint.replace(/\n$/, ""),
    `  ${r.next[0]}    # restart it if it is already running`,
    ...(r.next[1] ? [`  ${r.next[1]}    # in another terminal; --once processes what is new and exits`] : []),
  );
  return lines.filter((l) => l !== "").join("\n") + "\n";
}

/** The --json report (no secrets: the password is a reference, the token is never included); `named` as for formatSetupSummary. */
export function setupJson(r: MailSetupResult, named: (sentence: string) => string = (s) => s): Record<string, unknown> {
  return {
    ok: true,
    configPath: r.configPath,
    created: r.created,
    written: r.written,
    mail: r.mail,
    changes: r.changes.map(named),
    tokenCreated: r.tokenCreated,
    settings: {
      imap: { host: r.answers.host, port: r.answers.port, tls: r.answers.tls, user: r.answers.user, password: r.answers.password, mailbox: r.answers.mailbox },
      hookUrl: r.answers.hookUrl,
      includeBody: r.answers.includeBody,
      maxBytes: r.answers.maxBytes,
      autoStart: r.autoStart,
    },
    warnings: r.warnings.map(named),
    next: r.next,
  };
}
