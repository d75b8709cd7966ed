/**
 * The rules of the `hooks` section in one place: defaults, bounds and patterns.
 * The joi schema (src/config/schema.ts) is built from these constants, and
 * `plugin.json#configSchema` is generated from the joi schema
 * (src/config/json-schema/, `npm run generate`).
 */
import { MAX_PORT } from "../host-contract/gateway-address";
import { MAX_RUN_TIMEOUT_SECONDS } from "../host-contract/host-api";

/** Defaults applied by `resolveConfig()` (and declared as `default` in plugin.json). */
export const HOOKS_DEFAULTS = {
  enabled: false,
  path: "/hooks",
  maxBodyBytes: 262144,
  bodyTimeoutMs: 30000,
  allowQueryToken: true,
  transformTimeoutMs: 5000,
  /** Relative to the config file's directory. */
  transformsDir: "hooks/transforms",
  allowedSessionKeyPrefixes: ["hook:"],
  runs: {
    maxConcurrent: 4,
    maxQueued: 1000,
    shutdownGraceSeconds: 10,
    retryInterrupted: false,
    maxWaitSeconds: 30,
    maxWaitingPerClient: 8,
    retentionDays: 7,
    maxFinished: 1000,
  },
  maxFanOut: 100,
  /** Most bytes of messages one request may render across all its actions (SPEC §9). */
  maxRenderedBytes: 1048576,
  idempotency: { ttlSeconds: 86400 },
  rateLimit: { enabled: true, max: 120, windowSeconds: 60 },
  authThrottle: { maxFailures: 20, windowSeconds: 60 },
  ledger: { storeBodies: true, retentionDays: 7, maxEntries: 10000 },
  /** What an accepted request survives: "process" (a crash, kill -9) or "os" (also an OS crash or power loss). */
  durability: "process",
  /** `hooks.store`: where runs, idempotency records and the ledger live (SPEC §16). */
  store: { kind: "sqlite", poolMax: 10, connectTimeoutMs: 5000, leaseSeconds: 30 },
} as const;

/** Values of `hooks.store.kind` (docs/scale.md). */
export const STORE_KINDS = ["sqlite", "postgres"] as const;

/** Values of `hooks.durability` (docs/reliability.md). */
export const DURABILITIES = ["process", "os"] as const;

/** Defaults of `hooks.mappings[]` entries. */
export const MAPPING_DEFAULTS = { action: "agent", idPrefix: "mapping-" } as const;

/** Defaults of `hooks.github` (the built-in `github` preset). */
export const GITHUB_DEFAULTS = { deliver: true, channel: "last" } as const;

/** Defaults of `hooks.mail`. The IMAP port defaults by TLS mode (993 for `tls`, else 143). */
export const MAIL_DEFAULTS = {
  tls: "tls",
  mailbox: "INBOX",
  includeBody: false,
  maxBytes: 8192,
  maxMessages: 10,
  pollSeconds: 60,
  autoStart: false,
  deliver: true,
  channel: "last",
  allowUnsafeExternalContent: false,
} as const;

export const IMAP_DEFAULT_PORTS = { tls: 993, starttls: 143, none: 143 } as const;

/** Default of `agents.defaults.timeoutSeconds`. */
export const DEFAULT_AGENT_TIMEOUT_SECONDS = 600;

/** Inclusive bounds of numeric keys. `exclusiveMin` marks "> min" instead of "≥ min". */
export interface Bound {
  min: number;
  max: number;
  integer: boolean;
  exclusiveMin?: boolean;
}

export const BOUNDS = {
  maxBodyBytes: { min: 1, max: 67108864, integer: true },
  bodyTimeoutMs: { min: 1, max: 600000, integer: true },
  transformTimeoutMs: { min: 1, max: 300000, integer: true },
  timeoutSeconds: { min: 0, max: MAX_RUN_TIMEOUT_SECONDS, integer: false, exclusiveMin: true },
  maxConcurrent: { min: 1, max: 256, integer: true },
  maxQueued: { min: 1, max: 1000000, integer: true },
  shutdownGraceSeconds: { min: 0, max: 3600, integer: false },
  ttlSeconds: { min: 1, max: 31536000, integer: true },
  rateMax: { min: 1, max: 1000000, integer: true },
  windowSeconds: { min: 1, max: 86400, integer: true },
  maxFailures: { min: 1, max: 100000, integer: true },
  port: { min: 1, max: MAX_PORT, integer: true },
  mailMaxBytes: { min: 1, max: 10485760, integer: true },
  maxMessages: { min: 1, max: 1000, integer: true },
  pollSeconds: { min: 1, max: 86400, integer: true },
  toleranceSeconds: { min: 1, max: 86400, integer: true },
  maxWaitSeconds: { min: 0, max: 3600, integer: true },
  maxWaitingPerClient: { min: 0, max: 10000, integer: true },
  runRetentionDays: { min: 1, max: 3650, integer: true },
  runMaxFinished: { min: 1, max: 10000000, integer: true },
  maxFanOut: { min: 1, max: 10000, integer: true },
  maxRenderedBytes: { min: 1024, max: 67108864, integer: true },
  ledgerRetentionDays: { min: 1, max: 3650, integer: true },
  ledgerMaxEntries: { min: 1, max: 10000000, integer: true },
  storePoolMax: { min: 1, max: 100, integer: true },
  storeConnectTimeoutMs: { min: 100, max: 60000, integer: true },
  storeLeaseSeconds: { min: 5, max: 3600, integer: true },
} as const satisfies Record<string, Bound>;

/** Maximum lengths of strings (same as the direct /agent request, SPEC §4.4). */
export const MAX_LENGTHS = {
  name: 200,
  sessionKey: 256,
  to: 256,
  model: 200,
  channel: 100,
  source: 200,
  template: 100000,
  generic: 1000,
} as const;

export const TOKEN_MIN_LENGTH = 16;

export const TLS_MODES = ["tls", "starttls", "none"] as const;

/*
 * Patterns. Each is written once here as a string (the same string appears in
 * plugin.json) and compiled with the `u` flag, as ajv does.
 */
export const PATTERNS = {
  /** Plain-text token: at least 16 characters after trimming. */
  tokenLength: "^\\s*\\S[\\s\\S]{14,}\\S\\s*$",
  /** Plain-text token: printable ASCII only (no inner spaces), surrounding whitespace is trimmed. */
  tokenCharset: "^\\s*[!-~]*\\s*$",
  /** Name of an environment variable. */
  envName: "^[A-Za-z_][A-Za-z0-9_]*$",
  /** Hook path characters: letters, digits, `-`, `_`, `.`, `~` and `/`. */
  pathChars: "^[A-Za-z0-9._~/-]*$",
  /** Hook path: at least one character that is not `/` (so `/` alone is refused). */
  pathNotRoot: "[^/]",
  /** Hook path: no `..` anywhere and no `.` segment. */
  pathNoDots: "^(?![\\s\\S]*\\.\\.)(?!(?:[\\s\\S]*/)?\\.(?:/|$))",
  /** Mapping id. */
  mappingId: "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$",
  /** Transform module: relative, no `..` segment, no backslash, a supported extension. */
  transformModule: "^(?![/\\\\])(?![A-Za-z]:)(?!(?:[\\s\\S]*/)?\\.\\.(?:/|$))[^\\\\\\u0000]*\\.(?:js|mjs|cjs|ts)$",
  /** Transform export: a JavaScript identifier. */
  exportName: "^[A-Za-z_$][A-Za-z0-9_$]*$",
  /** A session-key prefix: no whitespace, ends with `:`. */
  sessionKeyPrefix: "^\\S*:$",
  /** An agent id (OpenClaw's rule for agent ids: letters, digits, `_`, `-`; at most 64). */
  agentId: "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$",
  /** An entry of hooks.allowedAgentIds: an agent id, or `*` (every agent). */
  agentIdOrAny: "^(?:\\*|[A-Za-z0-9][A-Za-z0-9_-]{0,63})$",
  /** Hook URL of the mail watcher. */
  hookUrl: "^https?://\\S+$",
  /** A model ref: `provider/model`. */
  modelRef: "^[^/\\s]+/\\S+$",
  /** A non-blank single line: no control characters, at least one non-space character. */
  line: "^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$",
  /** Not blank (templates may span lines). */
  notBlank: "\\S",
  /** A header name in lower case (an HTTP token). */
  headerName: "^[!#$%&'*+.^_`|~0-9a-z-]+$",
} as const;

export type PatternName = keyof typeof PATTERNS;

/** The patterns compiled as ajv compiles them (`u` flag). */
export const REGEXES: { readonly [K in PatternName]: RegExp } = Object.fromEntries(Object.entries(PATTERNS).map(([k, v]) => [k, new RegExp(v, "u")])) as {
  [K in PatternName]: RegExp;
};

/** What each pattern requires, as the end of a sentence that starts with the key (`hooks.path …`). */
export const PATTERN_RULES: { readonly [K in PatternName]: string } = {
  tokenLength: "must be at least 16 characters long (after trimming)",
  tokenCharset: "must contain only printable ASCII characters (no spaces inside)",
  envName: "must be an environment variable name (letters, digits and _, not starting with a digit)",
  pathChars: "may contain only letters, digits, '-', '_', '.', '~' and '/' (no '?', '#', '%' or whitespace)",
  pathNotRoot: 'must not be "/" alone',
  pathNoDots: "must not contain '..' or a '.' segment",
  mappingId: "must start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-' (at most 128 characters)",
  transformModule: "must be a relative path inside hooks.transformsDir (no leading '/', no '..' segment, no '\\') ending in .js, .mjs, .cjs or .ts",
  exportName: "must be a JavaScript identifier",
  sessionKeyPrefix: "must end with ':' and contain no whitespace",
  agentId: "must be an agent id: a letter or digit, then letters, digits, '_' and '-' (at most 64 characters)",
  agentIdOrAny: "must be an agent id (letters, digits, '_' and '-', at most 64 characters) or \"*\"",
  hookUrl: "must be an http:// or https:// URL",
  modelRef: "must be a model ref of the form provider/model",
  line: "must be a non-blank single line without control characters",
  notBlank: "must not be blank",
  headerName: "must be a header name in lower case (letters, digits and !#$%&'*+.^_`|~-)",
};
