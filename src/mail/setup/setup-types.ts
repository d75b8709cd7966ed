/** What `mail setup` takes (flags, context) and what it returns, shared by its steps. */
import type { Readable, Writable } from "node:stream";
import type { MailSetupAnswers } from "./setup-answers";
import type { SectionStore } from "../../host-contract/section-store";

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
  /** The host's writer of the plugin's section (`api.sectionStore`, inside OpenClaw); absent: the config file is edited. */
  store?: SectionStore;
  /** `api.configDir`: what the section's relative paths resolve against, when `store` writes it. */
  configDir?: string;
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
