/**
 * The typed configuration of the plugin, in two steps (src/config/resolve.ts):
 * `resolveConfig()` turns the raw gateway config into `HooksConfig` at activation
 * (validated, defaulted, no secret read), and `resolveHooksSecrets()` reads the
 * hook token into `ResolvedHooksConfig` where it is needed — when the gateway
 * starts serving hooks, or a command posts to them. Request handling only ever
 * reads these values.
 */
import type { ThinkingLevel } from "../host-contract/host-api";
import type { SecretRef } from "./secrets";
import type { VerifyScheme } from "../safety/signatures/types";

import type { ActionKind, WakeMode } from "../core/actions";

export type { ActionKind, WakeMode };

/** A mapping as configured (validated by joi, defaults applied, not yet compiled). */
export interface MappingConfig {
  /** Default `mapping-<n>` (1-based position among configured mappings). */
  id: string;
  match?: {
    /** Normalised: no leading/trailing slashes. */
    path?: string;
    source?: string;
    /** Lower-case header name → accepted values (a single configured string becomes a list of one). */
    headers?: Record<string, string[]>;
  };
  action: ActionKind;
  wakeMode?: WakeMode;
  name?: string;
  sessionKey?: string;
  textTemplate?: string;
  messageTemplate?: string;
  deliver?: boolean;
  channel?: string;
  to?: string;
  model?: string;
  thinking?: ThinkingLevel;
  /** The agent an agent action's run goes to (absent: the host's default agent). */
  agentId?: string;
  timeoutSeconds?: number;
  allowUnsafeExternalContent?: boolean;
  transform?: { module: string; export?: string };
  /** Per-mapping rate-limit override. */
  rateLimit?: { max: number; windowSeconds: number };
  /** Sender verification (SPEC §10), secrets not read yet. */
  verify?: VerifyConfig;
  /** Template of the idempotency key used when the request has no idempotency header. */
  idempotencyKey?: string;
  /** Template naming the event (SPEC §6.1); default per verify scheme (src/mappings/event-name.ts). */
  event?: string;
  /** Payload path to an array: one action per element (SPEC §12). */
  forEach?: string;
  /** The answer to send instead of the default one (SPEC §12). */
  response?: MappingResponseConfig;
  /** A sender's URL verification answered by the hook itself (SPEC §12). */
  handshake?: HandshakeConfig;
}

/** `response` of a mapping: a status and a body whose strings are templates. */
export interface MappingResponseConfig {
  status: 200 | 202;
  /** A template string, or an object (nested objects and arrays allowed) whose string values are templates. */
  body?: unknown;
}

/** `handshake` of a mapping: Slack's signed url_verification POST, or Meta's verify-token GET. */
export type HandshakeConfig = "slack" | { meta: { verifyToken: SecretSource } };

/** `verify` of a mapping (or of a preset) as configured: secrets by source, read when hooks start serving. */
export interface VerifyConfig {
  scheme: VerifyScheme;
  /** A single secret or a list (rotation). Never log the resolved values. */
  secret: SecretSource | SecretSource[];
  toleranceSeconds?: number;
  header?: string;
  prefix?: string;
  encoding?: "hex" | "base64";
}

/** `hooks.github`: the built-in `github` preset. */
export interface GithubConfig {
  /** Webhook secret(s); required when `github` is in `hooks.presets`. */
  secret?: SecretSource | SecretSource[];
  /** Further events turned into runs with a generic message. */
  events: string[];
  deliver: boolean;
  channel: string;
  to?: string;
  model?: string;
  thinking?: ThinkingLevel;
  agentId?: string;
}

export type MailTlsMode = "tls" | "starttls" | "none";

export interface MailConfig {
  imap: {
    host: string;
    port: number;
    tls: MailTlsMode;
    user: string;
    /** Reference only; resolved when the watcher connects. */
    password: { env: string } | { file: string };
    mailbox: string;
  };
  /**
   * URL the watcher posts to, e.g. http://127.0.0.1:18789/hooks/mail: `hooks.mail.hookUrl`,
   * else derived from `gateway.bind`, `gateway.port` and `hooks.path` (src/config/mail-hook-url.ts).
   */
  hookUrl: string;
  includeBody: boolean;
  maxBytes: number;
  maxMessages: number;
  pollSeconds: number;
  autoStart: boolean;
  deliver: boolean;
  channel: string;
  to?: string;
  model?: string;
  thinking?: ThinkingLevel;
  agentId?: string;
  allowUnsafeExternalContent: boolean;
}

export interface RunsConfig {
  maxConcurrent: number;
  maxQueued: number;
  shutdownGraceSeconds: number;
  retryInterrupted: boolean;
  /** Cap of `Prefer: wait=<seconds>` (0: never wait). */
  maxWaitSeconds: number;
  /** Concurrent waiting requests per client; beyond it a request is answered at once. */
  maxWaitingPerClient: number;
  /** Finished runs older than this (days since they finished) are deleted. */
  retentionDays: number;
  /** At most this many finished runs are kept. */
  maxFinished: number;
}

export interface RateLimitConfig {
  enabled: boolean;
  /** Requests per window per client (authenticated requests). */
  max: number;
  windowSeconds: number;
}

export interface AuthThrottleConfig {
  /** Failures from one client within the window before 429. SPEC: 20 in 60 s. */
  maxFailures: number;
  windowSeconds: number;
}

/** `hooks.ledger` (SPEC §11). */
export interface LedgerConfig {
  /** Keep raw bodies and redacted headers (replay needs them). Default true. */
  storeBodies: boolean;
  /** Deliveries older than this many days are pruned. Default 7. */
  retentionDays: number;
  /** At most this many deliveries are kept. Default 10000. */
  maxEntries: number;
}

/** `hooks.store` (SPEC §16): SQLite in the state dir, or a Postgres shared by receivers and consumers. */
export type StoreConfig =
  | { kind: "sqlite" }
  | {
      kind: "postgres";
      /** `hooks.store.url` as configured (shape checked, not read): it carries the password. Never log. */
      urlSource: SecretSource;
      poolMax: number;
      connectTimeoutMs: number;
      leaseSeconds: number;
    };

/** A secret as configured: plain text, `{ env }` or `{ file }`; read only where it is used. */
export type SecretSource = string | SecretRef;

export interface HooksConfig {
  enabled: boolean;
  /** `hooks.token` as configured (shape checked, not read). Never log. */
  tokenSource?: SecretSource;
  /** `gateway.auth.token` as configured: the hook token must differ from it (checked when both are read). */
  gatewayTokenSource?: SecretSource;
  /** Normalised: leading `/`, no trailing `/`, never `/` alone. */
  path: string;
  maxBodyBytes: number;
  /** Most items one forEach request may fan out to. */
  maxFanOut: number;
  /** Most bytes of messages one mapped request may render across all its actions. Default 1 MiB. */
  maxRenderedBytes: number;
  /** A body that does not complete in this time → 408. Default 30000. */
  bodyTimeoutMs: number;
  allowQueryToken: boolean;
  presets: string[];
  mappings: MappingConfig[];
  /** Absolute path. */
  transformsDir: string;
  /** Bound of all the transform calls of one request (a forEach's items share it). Default 5000. */
  transformTimeoutMs: number;
  mail?: MailConfig;
  github?: GithubConfig;
  /** `hooks.allowedAgentIds`: the agents runs may go to; absent: every agent of the host ("*" too). */
  allowedAgentIds?: string[];
  allowedSessionKeyPrefixes: string[];
  runs: RunsConfig;
  idempotency: { ttlSeconds: number };
  rateLimit: RateLimitConfig;
  authThrottle: AuthThrottleConfig;
  ledger: LedgerConfig;
  /** `hooks.store`: default `{ kind: "sqlite" }`. */
  store: StoreConfig;
  /** `hooks.durability`: "process" (default, WAL synchronous=NORMAL) or "os" (synchronous=FULL). */
  durability: "process" | "os";
  /** From `agents.defaults.timeoutSeconds` (default 600). */
  defaultTimeoutSeconds: number;
}

/**
 * What the compile-time checks (mapping engine, presets) read of a `HooksConfig`. While the schema
 * has problems, it holds only the parts that passed: a mapping or preset entry that failed (or
 * that depends on a section that failed, like `github` on `hooks.github`) is `undefined`, its
 * index kept because messages name it (`hooks.mappings[2]`), so no problem is reported twice or
 * as a mere consequence of a schema problem.
 */
export type CompilableHooksConfig = Pick<HooksConfig, "path" | "transformsDir" | "mail" | "github"> & {
  presets: ReadonlyArray<string | undefined>;
  mappings: ReadonlyArray<MappingConfig | undefined>;
};

/** `HooksConfig` with the hook token read from its source. */
export interface ResolvedHooksConfig extends HooksConfig {
  /** The token (from plain text, env or file), trimmed. Empty string when hooks are disabled. Never log. */
  token: string;
}
