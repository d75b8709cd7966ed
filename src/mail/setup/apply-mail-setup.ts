/**
 * Applies `mail setup` answers to a raw gateway config object (pure: returns a new
 * object). Sets `hooks.enabled`, adds `mail` to `hooks.presets` once, creates
 * `hooks.token` when missing, and writes/updates `hooks.mail` — keeping every other
 * key, and the order of existing keys.
 */
import { isDeepStrictEqual } from "node:util";
import { randomBytes } from "node:crypto";
import type { MailSetupAnswers } from "./setup-answers";

export interface ApplyMailSetupResult {
  config: Record<string, unknown>;
  /** Human-readable list of what changed (never contains a secret). */
  changes: string[];
  tokenCreated: boolean;
  /** "created" on the first run, "updated" when values changed, "unchanged" otherwise. */
  mail: "created" | "updated" | "unchanged";
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** A random hook token: 32 bytes, base64url (43 characters). */
export function generateHookToken(): string {
  return randomBytes(32).toString("base64url");
}

export function applyMailSetup(raw: Readonly<Obj>, answers: MailSetupAnswers, opts: { generateToken?: () => string } = {}): ApplyMailSetupResult {
  // A JSON round trip (the config is JSON data): a deep copy whose objects all share one realm.
  const config = JSON.parse(JSON.stringify(raw)) as Obj;
  const changes: string[] = [];
  if (!isObj(config.hooks)) {
    config.hooks = {};
    changes.push("hooks section created");
  }
  const hooks = config.hooks as Obj;

  if (hooks.enabled !== true) {
    hooks.enabled = true;
    changes.push("hooks.enabled set to true");
  }

  if (!Array.isArray(hooks.presets)) {
    hooks.presets = ["mail"];
    changes.push('hooks.presets set to ["mail"]');
  } else if (!hooks.presets.includes("mail")) {
    hooks.presets = [...hooks.presets, "mail"];
    changes.push('"mail" added to hooks.presets');
  }

  let tokenCreated = false;
  if (hooks.token === undefined || hooks.token === null || (typeof hooks.token === "string" && hooks.token.trim() === "")) {
    hooks.token = (opts.generateToken ?? generateHookToken)();
    tokenCreated = true;
    changes.push("hooks.token created (random, stored in the config file)");
  }

  const existing = isObj(hooks.mail) ? hooks.mail : undefined;
  const mail: Obj = existing ? { ...existing } : {};
  mail.imap = {
    ...(isObj(existing?.imap) ? existing.imap : {}),
    host: answers.host,
    port: answers.port,
    tls: answers.tls,
    user: answers.user,
    password: answers.password,
    mailbox: answers.mailbox,
  };
  mail.hookUrl = answers.hookUrl;
  mail.includeBody = answers.includeBody;
  mail.maxBytes = answers.maxBytes;
  if (answers.autoStart !== undefined) mail.autoStart = answers.autoStart;

  let state: ApplyMailSetupResult["mail"];
  if (!existing) {
    state = "created";
    changes.push("hooks.mail written");
  } else if (isDeepStrictEqual(existing, mail)) {
    state = "unchanged";
  } else {
    state = "updated";
    changes.push("hooks.mail updated");
  }
  hooks.mail = mail;
  return { config, changes, tokenCreated, mail: state };
}
