/**
 * `/agent` fields (SPEC §4.4). The schema depends on what the host offers at
 * request time (channels, model allow-list); it is compiled once per distinct
 * offer and cached.
 */
import Joi from "joi";
import { ok, err, type Result } from "../core/errors";
import { MAX_RUN_TIMEOUT_SECONDS, THINKING_LEVELS, type AllowedModel, type ModelPolicy } from "../host-contract/host-api";
import { hasControlChars, stripControlChars } from "./control-chars";
import { PHONE_CHANNELS, normalizePhoneNumber } from "./phone-number";
import { confineSessionKey, defaultSessionKey } from "./session-key";
import type { AgentAction } from "../core/actions";
import { requiredText, wakeModeField } from "./validate-wake";
import { fastAgentFields } from "./fast-fields";
import type { ValidationContext } from "./validation-context";
import { BASE_MESSAGES, MODEL_NOT_ALLOWED, REQUEST_VALIDATION_OPTIONS, toProblems, validationError } from "./validation-errors";
import { hookErrors } from "../core/errors";
import { PATTERN_RULES, REGEXES } from "../config/rules";
import { agentProblem } from "./agent-id";

export const MAX_NAME_LENGTH = 200;
export const MAX_SESSION_KEY_LENGTH = 256;
export const MAX_RECIPIENT_LENGTH = 256;
export const MAX_MODEL_LENGTH = 256;
export const DEFAULT_HOOK_NAME = "Hook";

const NOT_BLANK = { "string.empty": "{#label} must not be empty or blank", "string.pattern.base": "{#label} must not be empty or blank" };

function describeModels(list: AllowedModel[]): string {
  return list.map((m) => (m.alias ? `${m.ref} (alias ${m.alias})` : m.ref)).join(", ");
}

/** The embedded gateway's rule: `agents.defaults.models`, enforced when non-empty. */
const DEFAULT_MODEL_POLICY: ModelPolicy = { source: "agents.defaults.models", enforcedWhenEmpty: false };

function modelRule(allowList: AllowedModel[], policy: ModelPolicy): string {
  if (allowList.length === 0) return `{#label} cannot be chosen here: no model may be named (${policy.source})`;
  return `{#label} is not in the allowed models list (${policy.source}); use one of: ${describeModels(allowList)}`;
}

function agentSchema(channels: string[], allowList: AllowedModel[], policy: ModelPolicy): Joi.ObjectSchema {
  const channelRule =
    channels.length > 0
      ? `{#label} must be "last" or one of the channels the gateway offers: ${channels.join(", ")}`
      : `{#label} must be "last" (the gateway offers no other channels right now)`;

  return Joi.object({
    message: requiredText(),
    name: Joi.string()
      .allow("")
      .custom((v: string, h) => {
        const clean = stripControlChars(v).trim();
        return clean.length > MAX_NAME_LENGTH ? h.error("name.tooLong") : clean;
      })
      .messages({ "name.tooLong": `{#label} must be at most ${MAX_NAME_LENGTH} characters long` }),
    sessionKey: Joi.string()
      .max(MAX_SESSION_KEY_LENGTH)
      .pattern(/\S/)
      .custom((v: string, h) => (hasControlChars(v) ? h.error("sessionKey.control") : v.trim()))
      .messages({ ...NOT_BLANK, "sessionKey.control": "{#label} must not contain control characters" }),
    wakeMode: wakeModeField(),
    deliver: Joi.boolean(),
    channel: Joi.string()
      .valid("last", ...channels)
      .messages({ "any.only": channelRule }),
    to: Joi.string()
      .max(MAX_RECIPIENT_LENGTH)
      .pattern(/\S/)
      .custom((v: string, h) => {
        const channel = (h.state.ancestors[0] as Record<string, unknown>).channel;
        if (typeof channel === "string" && PHONE_CHANNELS.includes(channel)) {
          return normalizePhoneNumber(v) ?? h.error("to.phone", { channel });
        }
        return v.trim();
      })
      .messages({
        ...NOT_BLANK,
        "to.phone": "{#label} must be a phone number in E.164 form (for example +4915123456789) for channel {#channel}",
      }),
    model: Joi.string()
      .max(MAX_MODEL_LENGTH)
      .pattern(/\S/)
      .custom((v: string, h) => {
        if ((allowList.length === 0 && !policy.enforcedWhenEmpty) || allowList.some((m) => m.ref === v || m.alias === v)) return v;
        return h.error(MODEL_NOT_ALLOWED);
      })
      .messages({
        ...NOT_BLANK,
        [MODEL_NOT_ALLOWED]: modelRule(allowList, policy),
      }),
    thinking: Joi.string().valid(...THINKING_LEVELS),
    agentId: Joi.string()
      .pattern(REGEXES.agentId)
      .messages({ "string.pattern.base": `{#label} ${PATTERN_RULES.agentId}` }),
    timeoutSeconds: Joi.number().greater(0).max(MAX_RUN_TIMEOUT_SECONDS),
  }).messages(BASE_MESSAGES);
}

/** Compiled schemas by offer (channels + allow-list); a handful at most in practice. */
const schemaCache = new Map<string, Joi.ObjectSchema>();
const MAX_CACHED_SCHEMAS = 16;

function schemaFor(channels: string[], allowList: AllowedModel[], policy: ModelPolicy = DEFAULT_MODEL_POLICY): Joi.ObjectSchema {
  const key = JSON.stringify([channels, allowList.map((m) => [m.ref, m.alias ?? null]), policy.source, policy.enforcedWhenEmpty]);
  let schema = schemaCache.get(key);
  if (!schema) {
    schema = agentSchema(channels, allowList, policy);
    if (schemaCache.size >= MAX_CACHED_SCHEMAS) schemaCache.delete(schemaCache.keys().next().value as string);
    schemaCache.set(key, schema);
  }
  return schema;
}

/** The joi output: the action's fields before defaults, only `message` required. */
type AgentFields = { message: string } & Partial<Omit<AgentAction, "kind" | "message">>;

/**
 * Validates an `/agent` body (or a mapped agent action's fields) and resolves
 * defaults: name `Hook`, session key confined or `hook:<uuid>`, channel `last`,
 * model alias resolved, timeout from `agents.defaults.timeoutSeconds`. `subject`
 * names what is validated in the error sentence.
 *
 * @example validateAgent({ message: "hi", sessionKey: "main" }, ctx) // sessionKey "hook:main"
 */
export function validateAgent(raw: unknown, ctx: ValidationContext, subject = "request body"): Result<AgentAction> {
  const limits = {
    channels: ctx.runtime.channels.list(),
    maxName: MAX_NAME_LENGTH,
    maxSessionKey: MAX_SESSION_KEY_LENGTH,
    maxTimeoutSeconds: MAX_RUN_TIMEOUT_SECONDS,
  };
  const fast = fastAgentFields(raw, limits) as AgentFields | undefined;
  return withAgentChecked(fast ? ok(agentAction(fast, ctx)) : validateAgentWithSchema(raw, ctx, subject), ctx);
}

/** `validated`, or 400 agent_not_allowed when its run may not go to the agent it names (or, naming none, to the default). */
function withAgentChecked(validated: Result<AgentAction>, ctx: ValidationContext): Result<AgentAction> {
  if (!validated.ok) return validated;
  const problem = agentProblem(validated.value.agentId, ctx.runtime.agents.known?.(), ctx.config.allowedAgentIds);
  return problem === undefined ? validated : err(hookErrors.agentNotAllowed({ problem }, { details: [{ field: "agentId", message: problem }] }));
}

/** `validateAgent` through joi alone (what the fast path must agree with; the path of every invalid body). */
export function validateAgentWithSchema(raw: unknown, ctx: ValidationContext, subject = "request body"): Result<AgentAction> {
  const schema = schemaFor(ctx.runtime.channels.list(), ctx.runtime.models.allowList(), ctx.runtime.models.policy?.());
  const { error, value } = schema.validate(raw, REQUEST_VALIDATION_OPTIONS);
  if (error) return err(validationError(toProblems(error), subject));
  return ok(agentAction(value as AgentFields, ctx));
}

/** The action of validated fields, defaults resolved. */
function agentAction(v: AgentFields, ctx: ValidationContext): AgentAction {
  const { runtime, config } = ctx;

  const action: AgentAction = {
    kind: "agent",
    message: v.message.trim(),
    name: v.name || DEFAULT_HOOK_NAME,
    sessionKey: v.sessionKey !== undefined ? confineSessionKey(v.sessionKey, config.allowedSessionKeyPrefixes) : defaultSessionKey(ctx.idGen),
    wakeMode: v.wakeMode ?? "now",
    deliver: v.deliver ?? true,
    channel: v.channel ?? "last",
    timeoutSeconds: v.timeoutSeconds ?? config.defaultTimeoutSeconds,
  };
  if (v.to !== undefined) action.to = v.to;
  if (v.model !== undefined) action.model = runtime.models.resolve(v.model);
  if (v.thinking !== undefined) action.thinking = v.thinking;
  if (v.agentId !== undefined) action.agentId = v.agentId;
  return action;
}
