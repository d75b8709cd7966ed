/**
 * The built-in `mail` preset (SPEC §6.4), implemented in code: two mappings, one
 * on path `mail` and one on `source: "mail"` (so a generic ingest endpoint works
 * too), each turning a mail push into one agent run named `Mail` whose message
 * lists every message of the push. Routing and model settings come from `hooks.mail`.
 */
import type { MailConfig, ResolvedHooksConfig } from "../../config/types";
import { MAIL_DEFAULTS } from "../../config/rules";
import { err, ok } from "../../core/errors";
import type { RawAction } from "../../core/ports";
import type { CompiledMapping, MappingMatch } from "../compiled-mapping";
import { fitMailMessage, mailSessionKey, renderMailMessage } from "./mail-message";
import { parseMailPush } from "./mail-push";

export const MAIL_PRESET_NAME = "mail";
export const MAIL_PRESET_DESCRIPTION = 'Mail pushed by `gateway webhooks mail run` (or any sender of {source:"mail", messages:[…]}).';

type MailRouting = Pick<MailConfig, "deliver" | "channel" | "maxMessages" | "allowUnsafeExternalContent"> &
  Partial<Pick<MailConfig, "to" | "model" | "thinking" | "agentId">>;

/** Routing from `hooks.mail`, or the defaults of its keys when the section is absent. */
function mailRouting(mail: MailConfig | undefined): MailRouting {
  return {
    deliver: mail?.deliver ?? MAIL_DEFAULTS.deliver,
    channel: mail?.channel ?? MAIL_DEFAULTS.channel,
    maxMessages: mail?.maxMessages ?? MAIL_DEFAULTS.maxMessages,
    allowUnsafeExternalContent: mail?.allowUnsafeExternalContent ?? MAIL_DEFAULTS.allowUnsafeExternalContent,
    to: mail?.to,
    model: mail?.model,
    thinking: mail?.thinking,
    agentId: mail?.agentId,
  };
}

function mailMapping(id: string, match: MappingMatch, index: number, routing: MailRouting): CompiledMapping {
  return {
    id,
    key: `hooks.presets "mail" (${id})`,
    origin: { kind: "preset", preset: MAIL_PRESET_NAME, pluginId: "inbound-webhooks", index },
    match,
    action: "agent",
    // A mail push is one kind of event: "mail" (the messages it carries are in the run's message).
    event: () => "mail",
    async build(ctx, deps) {
      const push = parseMailPush(ctx.payload);
      if (!push.ok) return err(push.error);
      const raw: RawAction = {
        kind: "agent",
        message: fitMailMessage(renderMailMessage(push.value, routing.maxMessages), deps.maxRenderedBytes),
        name: "Mail",
        sessionKey: mailSessionKey(push.value),
        deliver: routing.deliver,
        channel: routing.channel,
      };
      if (routing.to !== undefined) raw.to = routing.to;
      if (routing.model !== undefined) raw.model = routing.model;
      if (routing.thinking !== undefined) raw.thinking = routing.thinking;
      if (routing.agentId !== undefined) raw.agentId = routing.agentId;
      return ok({ kind: "action" as const, mappingId: id, raw, allowUnsafeExternalContent: routing.allowUnsafeExternalContent });
    },
  };
}

/** The compiled mappings of the `mail` preset for this config. */
export function createMailPresetMappings(config: Pick<ResolvedHooksConfig, "mail">): CompiledMapping[] {
  const routing = mailRouting(config.mail);
  return [mailMapping("mail", { path: "mail" }, 0, routing), mailMapping("mail-source", { source: "mail" }, 1, routing)];
}
