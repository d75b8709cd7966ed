/**
 * joi schema of `hooks.mail` (SPEC §8): written by `gateway webhooks mail setup`,
 * read by `gateway webhooks mail run` and by the built-in `mail` preset.
 * The IMAP password is only ever a reference; plain text is refused.
 */
import Joi from "joi";
import { boundedNumber, line, patterned, secretRef } from "./joi-builders";
import { BOUNDS, MAIL_DEFAULTS, MAX_LENGTHS, TLS_MODES } from "./rules";
import { THINKING_LEVELS } from "../host-contract/host-api";

const imapSchema = Joi.object({
  host: line(MAX_LENGTHS.generic).required(),
  /** Defaults by TLS mode when resolved (993 for tls, else 143). */
  port: boundedNumber(BOUNDS.port).description("Default 993 with tls, 143 otherwise."),
  tls: Joi.string()
    .valid(...TLS_MODES)
    .default(MAIL_DEFAULTS.tls),
  user: line(MAX_LENGTHS.generic).required(),
  password: secretRef().required().description("Reference only; a plain-text password is refused. Read when the watcher connects."),
  mailbox: line(MAX_LENGTHS.generic).default(MAIL_DEFAULTS.mailbox),
});

export const mailSchema: Joi.ObjectSchema = Joi.object({
  imap: imapSchema.required(),
  hookUrl: patterned("hookUrl").max(MAX_LENGTHS.generic).description("URL the watcher posts to, e.g. http://127.0.0.1:18789/hooks/mail."),
  includeBody: Joi.boolean().default(MAIL_DEFAULTS.includeBody),
  maxBytes: boundedNumber(BOUNDS.mailMaxBytes).default(MAIL_DEFAULTS.maxBytes),
  maxMessages: boundedNumber(BOUNDS.maxMessages).default(MAIL_DEFAULTS.maxMessages),
  pollSeconds: boundedNumber(BOUNDS.pollSeconds).default(MAIL_DEFAULTS.pollSeconds),
  autoStart: Joi.boolean().default(MAIL_DEFAULTS.autoStart),
  deliver: Joi.boolean().default(MAIL_DEFAULTS.deliver),
  channel: line(MAX_LENGTHS.channel).default(MAIL_DEFAULTS.channel),
  to: line(MAX_LENGTHS.to),
  model: line(MAX_LENGTHS.model),
  thinking: Joi.string().valid(...THINKING_LEVELS),
  agentId: patterned("agentId").description("The agent the mail preset's runs go to (default: the host's default agent)."),
  allowUnsafeExternalContent: Joi.boolean().default(MAIL_DEFAULTS.allowUnsafeExternalContent),
});
