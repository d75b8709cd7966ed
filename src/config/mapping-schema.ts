/**
 * joi schema of one `hooks.mappings[]` entry (SPEC §6.1). Also used for the
 * mappings that presets contribute, so both are held to the same rules.
 */
import Joi from "joi";
import { boundedNumber, line, patterned, secretSource, secretSources, template } from "./joi-builders";
import { VERIFY_SCHEMES } from "../safety/signatures/types";
import { ACTION_KINDS, WAKE_MODES } from "../core/actions";
import { BOUNDS, MAPPING_DEFAULTS, MAX_LENGTHS, REGEXES } from "./rules";
import { THINKING_LEVELS } from "../host-contract/host-api";

const matchSchema = Joi.object({
  path: patterned("pathChars", "pathNotRoot", "pathNoDots").description("Sub-path after {hooks.path}/ (slashes trimmed), matched exactly."),
  source: line(MAX_LENGTHS.source).description("Matches payload.source."),
  headers: Joi.object()
    .pattern(REGEXES.headerName, Joi.alternatives().conditional(Joi.array(), { then: Joi.array().items(line()).min(1), otherwise: line() }))
    .description("Lower-case header name → a value or a list of values; every named header must equal one of its values."),
});

/** Condition: `verify.scheme` is the given scheme. */
const schemeIs = (scheme: string) => Joi.object({ scheme: Joi.valid(scheme).required() }).unknown();

const verifySchema = Joi.object({
  scheme: Joi.string()
    .valid(...VERIFY_SCHEMES)
    .required(),
  secret: secretSources()
    .required()
    .description("Plain text, { env }, { file }, or a list of them (rotation: any one verifies). Read when the gateway starts serving hooks."),
  toleranceSeconds: boundedNumber(BOUNDS.toleranceSeconds).description(
    "Freshness window of timestamped schemes (standard-webhooks, stripe, slack); default 300.",
  ),
  header: patterned("headerName").max(MAX_LENGTHS.name).description("hmac-sha256 and token-header: the header carrying the signature or secret (lower case)."),
  prefix: Joi.string().max(MAX_LENGTHS.name).description("hmac-sha256: text before the digest, e.g. sha256=."),
  encoding: Joi.string().valid("hex", "base64").description("hmac-sha256: digest encoding; default hex."),
})
  .when(schemeIs("hmac-sha256"), { then: Joi.object({ header: Joi.required() }) })
  .when(schemeIs("token-header"), { then: Joi.object({ header: Joi.required() }) });

const transformSchema = Joi.object({
  module: patterned("transformModule").max(MAX_LENGTHS.generic).required().description("Path relative to hooks.transformsDir (.js, .mjs, .cjs or .ts)."),
  export: patterned("exportName").max(MAX_LENGTHS.name),
});

const mappingRateLimitSchema = Joi.object({
  max: boundedNumber(BOUNDS.rateMax).required(),
  windowSeconds: boundedNumber(BOUNDS.windowSeconds).required(),
});

/** A response body: a template string, or a JSON object whose string values (at any depth) are templates, checked at activation. */
const responseBodySchema = Joi.alternatives().conditional(Joi.string(), { then: template(), otherwise: Joi.object().unknown(true) });

const responseSchema = Joi.object({
  status: Joi.number().valid(200, 202).required().description("200 or 202: the status of the answer (senders such as Forward Email accept only 200)."),
  body: responseBodySchema.description(
    "A template string, or an object whose string values are templates (payload, headers, query, item, index, runId, sessionKey, runs).",
  ),
});

const handshakeSchema = Joi.alternatives()
  .conditional(Joi.string(), {
    then: Joi.string().valid("slack"),
    otherwise: Joi.object({
      meta: Joi.object({ verifyToken: secretSource().required().description("Meta's verify token: plain text, { env } or { file }.") }).required(),
    }),
  })
  .description(
    '"slack": a signed url_verification POST is answered with its challenge; { meta: { verifyToken } }: the hub.challenge GET is answered when hub.verify_token matches.',
  );

/** Condition: the mapping has a transform (then templates are optional). */
const hasTransform = Joi.object({ transform: Joi.exist() }).unknown();
/** Condition: the mapping's action is `wake`. */
const isWake = Joi.object({ action: Joi.valid("wake").required() }).unknown();
/** Condition: the mapping's action is `agent`, or not given (the default). */
const isAgentOrDefault = Joi.object({ action: Joi.valid("agent") }).unknown();

/**
 * One mapping. Without a transform, a `wake` mapping needs `textTemplate` and an
 * `agent` mapping (the default action) needs `messageTemplate`.
 */
export const mappingSchema: Joi.ObjectSchema = Joi.object({
  id: patterned("mappingId").description("Default mapping-<n> (1-based position)."),
  match: matchSchema,
  action: Joi.string()
    .valid(...ACTION_KINDS)
    .default(MAPPING_DEFAULTS.action),
  wakeMode: Joi.string().valid(...WAKE_MODES),
  name: line(MAX_LENGTHS.name),
  sessionKey: line(MAX_LENGTHS.sessionKey),
  textTemplate: template().description("Text of a wake action ({{ expr }} templates)."),
  messageTemplate: template().description("Message of an agent action ({{ expr }} templates)."),
  deliver: Joi.boolean(),
  channel: line(MAX_LENGTHS.channel),
  to: line(MAX_LENGTHS.to),
  model: line(MAX_LENGTHS.model),
  thinking: Joi.string().valid(...THINKING_LEVELS),
  agentId: patterned("agentId").description("The agent an agent action's run goes to (default: the host's default agent); subject to hooks.allowedAgentIds."),
  timeoutSeconds: boundedNumber(BOUNDS.timeoutSeconds),
  allowUnsafeExternalContent: Joi.boolean().description("Disables the external-content safety wrapper for this mapping. Dangerous."),
  transform: transformSchema,
  rateLimit: mappingRateLimitSchema,
  verify: verifySchema.description("Sender verification (signatures); needs match.path."),
  event: template().description(
    "Template naming what happened at the sender (stored on the ledger row), e.g. {{ headers.x-github-event }}.{{ payload.action }}; default per verify scheme.",
  ),
  idempotencyKey: template().description("Template of the idempotency key used when the request has no idempotency header, e.g. {{ payload.id }}."),
  forEach: line(MAX_LENGTHS.name).description(
    "Payload path to an array: each element becomes one action (item and index in templates), at most hooks.maxFanOut.",
  ),
  response: responseSchema.description("The answer instead of the default: { status: 200 | 202, body }."),
  handshake: handshakeSchema,
})
  .when(Joi.object({ handshake: Joi.valid("slack").required() }).unknown(), {
    then: Joi.object({
      verify: Joi.object({ scheme: Joi.valid("slack").required() })
        .unknown()
        .required(),
    }),
  })
  .when(Joi.object({ handshake: Joi.object().required() }).unknown(), {
    then: Joi.object({ match: Joi.object({ path: Joi.required() }).unknown().required() }),
  })
  .when(hasTransform, {
    otherwise: Joi.when(isWake, {
      then: Joi.object({ textTemplate: Joi.required() }),
      // Only for "agent" or no action (the default): a mistyped action ("wakey") is reported as itself, not as a missing template.
      otherwise: Joi.when(isAgentOrDefault, { then: Joi.object({ messageTemplate: Joi.required() }) }),
    }),
  });

/** A list of mappings. */
export const mappingListSchema: Joi.ArraySchema = Joi.array().items(mappingSchema);
