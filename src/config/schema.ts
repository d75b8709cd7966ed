/**
 * joi schemas of the `hooks` section and of the related keys the plugin reads
 * (`agents.defaults.timeoutSeconds`, `agents.defaults.models`, `gateway.auth.token`).
 *
 * Unknown keys inside `hooks` (at any depth) are errors, so a typo such as
 * `hooks.tokn` is reported instead of silently ignored. Other sections belong to
 * the host: only the keys read here are checked, the rest is left alone.
 *
 * Validation never converts types (`convert: false`): `"true"` is not a boolean
 * and `"5"` is not a number. Defaults are applied.
 */
import Joi from "joi";
import { boundedNumber, line, patterned, secretRef, secretSource, secretSources, tokenSource, VALIDATION_OPTIONS } from "./joi-builders";
import { THINKING_LEVELS } from "../host-contract/host-api";
import { mailSchema } from "./mail-schema";
import { mappingSchema } from "./mapping-schema";
import { describeProblems } from "./problems";
import { BOUNDS, DEFAULT_AGENT_TIMEOUT_SECONDS, DURABILITIES, GITHUB_DEFAULTS, HOOKS_DEFAULTS, MAX_LENGTHS, REGEXES, STORE_KINDS } from "./rules";

const d = HOOKS_DEFAULTS;

const runsSchema = Joi.object({
  maxConcurrent: boundedNumber(BOUNDS.maxConcurrent).default(d.runs.maxConcurrent),
  maxQueued: boundedNumber(BOUNDS.maxQueued).default(d.runs.maxQueued),
  shutdownGraceSeconds: boundedNumber(BOUNDS.shutdownGraceSeconds).default(d.runs.shutdownGraceSeconds),
  retryInterrupted: Joi.boolean().default(d.runs.retryInterrupted),
  maxWaitSeconds: boundedNumber(BOUNDS.maxWaitSeconds)
    .default(d.runs.maxWaitSeconds)
    .description("Cap of Prefer: wait=<seconds> on agent hooks (RFC 7240); a larger value is clamped to it, 0 disables waiting."),
  maxWaitingPerClient: boundedNumber(BOUNDS.maxWaitingPerClient)
    .default(d.runs.maxWaitingPerClient)
    .description("Requests of one client that may wait for their run at once; beyond it a request is answered 202 at once."),
  retentionDays: boundedNumber(BOUNDS.runRetentionDays)
    .default(d.runs.retentionDays)
    .description("Finished runs (succeeded, failed, timed out, interrupted) are deleted this many days after they finished, in the background."),
  maxFinished: boundedNumber(BOUNDS.runMaxFinished)
    .default(d.runs.maxFinished)
    .description("At most this many finished runs are kept (the oldest are deleted in the background); queued and running runs are never deleted."),
}).default();

const idempotencySchema = Joi.object({
  ttlSeconds: boundedNumber(BOUNDS.ttlSeconds).default(d.idempotency.ttlSeconds),
}).default();

const rateLimitSchema = Joi.object({
  enabled: Joi.boolean().default(d.rateLimit.enabled),
  max: boundedNumber(BOUNDS.rateMax).default(d.rateLimit.max),
  windowSeconds: boundedNumber(BOUNDS.windowSeconds).default(d.rateLimit.windowSeconds),
}).default();

const authThrottleSchema = Joi.object({
  maxFailures: boundedNumber(BOUNDS.maxFailures).default(d.authThrottle.maxFailures),
  windowSeconds: boundedNumber(BOUNDS.windowSeconds).default(d.authThrottle.windowSeconds),
}).default();

/** `hooks.ledger`: the delivery ledger (SPEC §11, docs/ledger.md). */
const ledgerSchema = Joi.object({
  storeBodies: Joi.boolean()
    .default(d.ledger.storeBodies)
    .description("Store each request's raw body and redacted headers in the delivery ledger (needed for replay)."),
  retentionDays: boundedNumber(BOUNDS.ledgerRetentionDays)
    .default(d.ledger.retentionDays)
    .description("Deliveries older than this are pruned in the background."),
  maxEntries: boundedNumber(BOUNDS.ledgerMaxEntries).default(d.ledger.maxEntries).description("At most this many deliveries are kept (the oldest are pruned)."),
}).default();

/** `hooks.store`: SQLite in the state dir (the default), or one Postgres shared by receivers and consumers (SPEC §16, docs/scale.md). */
const storeSchema = Joi.object({
  kind: Joi.string()
    .valid(...STORE_KINDS)
    .default(d.store.kind)
    .description('"sqlite" (the default: one file in the state dir) or "postgres" (one database shared by receivers and consumers, docs/scale.md).'),
  url: secretSource()
    .when("kind", { is: Joi.valid("postgres"), then: Joi.required() })
    .description(
      'The Postgres url (postgres://user:password@host:port/database): plain text, { env } or { file }. Required when kind is "postgres"; read when the gateway starts serving hooks; its password never appears in a log line.',
    ),
  poolMax: boundedNumber(BOUNDS.storePoolMax).description("Most connections to Postgres this process opens (default 10)."),
  connectTimeoutMs: boundedNumber(BOUNDS.storeConnectTimeoutMs).description(
    "How long a query waits for a connection before it answers 503 storage_unavailable, and how long the start waits for Postgres (default 5000).",
  ),
  leaseSeconds: boundedNumber(BOUNDS.storeLeaseSeconds).description(
    "A consumer's lease on the runs it claimed: a run whose consumer died is taken over this long after its last renewal (default 30).",
  ),
}).default();

/** `hooks.github`: the built-in `github` preset (SPEC §10). */
const githubSchema = Joi.object({
  secret: secretSources().description(
    'GitHub webhook secret: plain text, { env }, { file }, or a list (rotation). Required when hooks.presets includes "github"; read when the gateway starts serving hooks.',
  ),
  events: Joi.array()
    .items(line(MAX_LENGTHS.name))
    .unique()
    .default([])
    .description("Further event names (X-GitHub-Event) turned into runs with a generic message."),
  deliver: Joi.boolean().default(GITHUB_DEFAULTS.deliver),
  channel: line(MAX_LENGTHS.channel).default(GITHUB_DEFAULTS.channel),
  to: line(MAX_LENGTHS.to),
  model: line(MAX_LENGTHS.model),
  thinking: Joi.string().valid(...THINKING_LEVELS),
  agentId: patterned("agentId").description("The agent the preset's runs go to (default: the host's default agent)."),
});

/** The `hooks` section (the same shape plugin.json#configSchema describes). */
export const hooksSectionSchema: Joi.ObjectSchema = Joi.object({
  enabled: Joi.boolean().default(d.enabled).description("The listener is exposed only when exactly true."),
  token: tokenSource()
    .description(
      "Hook token: plain text (at least 16 printable ASCII characters after trimming), { env } or { file }. Must differ from gateway.auth.token. Read when the gateway starts serving hooks.",
    )
    .when("enabled", { is: Joi.valid(true), then: Joi.required() }),
  path: patterned("pathChars", "pathNotRoot", "pathNoDots")
    .max(MAX_LENGTHS.generic)
    .default(d.path)
    .description("Base path: leading / added, trailing / removed; / alone is refused."),
  maxBodyBytes: boundedNumber(BOUNDS.maxBodyBytes).default(d.maxBodyBytes),
  maxFanOut: boundedNumber(BOUNDS.maxFanOut)
    .default(d.maxFanOut)
    .description("Most items a forEach mapping turns into actions per request; more → 400 fan_out_too_large."),
  maxRenderedBytes: boundedNumber(BOUNDS.maxRenderedBytes)
    .default(d.maxRenderedBytes)
    .description(
      "Most bytes of messages one request may render across all its actions (forEach items included); more → 400 render_too_large, nothing accepted.",
    ),
  bodyTimeoutMs: boundedNumber(BOUNDS.bodyTimeoutMs).default(d.bodyTimeoutMs),
  allowQueryToken: Joi.boolean().default(d.allowQueryToken).description("Accept the deprecated ?token= carrier."),
  presets: Joi.array().items(line(MAX_LENGTHS.name)).unique().default([]),
  mappings: Joi.array().items(mappingSchema).default([]),
  transformsDir: line(MAX_LENGTHS.generic).default(d.transformsDir).description("Relative paths resolve against the config file's directory."),
  transformTimeoutMs: boundedNumber(BOUNDS.transformTimeoutMs).default(d.transformTimeoutMs),
  mail: mailSchema,
  github: githubSchema,
  allowedAgentIds: Joi.array()
    .items(patterned("agentIdOrAny"))
    .unique()
    .description(
      'Agents a run may go to (agentId of a request, mapping or preset; a run without one goes to the default agent, which must be listed too). Absent or with "*": every agent of the host; [] refuses every run.',
    ),
  allowedSessionKeyPrefixes: Joi.array()
    .items(patterned("sessionKeyPrefix").max(MAX_LENGTHS.name))
    .min(1)
    .unique()
    .default([...d.allowedSessionKeyPrefixes]),
  runs: runsSchema,
  idempotency: idempotencySchema,
  rateLimit: rateLimitSchema,
  authThrottle: authThrottleSchema,
  ledger: ledgerSchema,
  store: storeSchema,
  durability: Joi.string()
    .valid(...DURABILITIES)
    .default(d.durability)
    .description(
      'What an accepted request survives: "process" (a crash or kill -9 of the gateway; no fsync per request) or "os" (also an OS crash or power loss: synchronous=FULL, one fdatasync per group commit). The gateway\'s journal and session logs follow it unless gateway.durability is set.',
    ),
}).default();

/** One entry of `agents.defaults.models` (host-owned: other keys are left to the host). */
const allowedModelSchema = Joi.object({ alias: line(MAX_LENGTHS.model) }).unknown(true);

/** The whole config as far as the plugin reads it. */
export const rawConfigSchema: Joi.ObjectSchema = Joi.object({
  hooks: hooksSectionSchema,
  agents: Joi.object({
    defaults: Joi.object({
      timeoutSeconds: boundedNumber(BOUNDS.timeoutSeconds).default(DEFAULT_AGENT_TIMEOUT_SECONDS),
      models: Joi.object().pattern(REGEXES.modelRef, allowedModelSchema),
    })
      .unknown(true)
      .default(),
  })
    .unknown(true)
    .default(),
  gateway: Joi.object({
    auth: Joi.object({
      token: Joi.alternatives().conditional(Joi.string().allow(""), { then: Joi.string().allow(""), otherwise: secretRef() }),
    }).unknown(true),
  }).unknown(true),
})
  .unknown(true)
  .default();

export { VALIDATION_OPTIONS };

/**
 * Checks a `hooks` section on its own (what plugin.json's JSON Schema also judges)
 * and returns one sentence per problem; `[]` when valid. The rules that need the
 * environment, files or other sections (token from env/file, token ≠ gateway token)
 * are checked by `resolveConfig()` only.
 */
export function checkHooksSection(section: unknown): string[] {
  const { error } = hooksSectionSchema.validate(section, VALIDATION_OPTIONS);
  return describeProblems(error, hooksSectionSchema, ["hooks"]);
}
