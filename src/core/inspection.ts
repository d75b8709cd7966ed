/**
 * Inspection: the plugin's view of its delivery ledger, runs and mappings, as its inspector's pages
 * (src/inspector/), its CLI and its ledger API read them — list and show deliveries, replay or dry-run
 * requests — without knowing the store or the HTTP routes. (Until host API 2.1 this was a host-contract
 * shape the embedded gateway read; now no host sees it: the inspector is the plugin's operator route.)
 *
 * Everything here is already redacted: no credential, signature or cookie ever appears in a value.
 * Bodies are the bytes the sender sent (rendered as text, never as markup).
 *
 * @example
 *   const page = inspector.listDeliveries({ limit: 50 });
 */
import type { BulkReplayFilter, BulkReplayPreview, BulkReplayResult } from "./bulk-replay";
import type { RunView } from "./runs";

/** A delivery search (`DeliveryQuery.search`) has 1 to this many words… */
export const MAX_SEARCH_WORDS = 8;
/** …and at most this many characters in all… */
export const MAX_SEARCH_CHARS = 200;
/**
 * …and at most this many different terms: what the index's tokenizer makes of its words
 * (`a.b.c` is 3 terms, `pull_request` 2). A search costs one walk over the index's rows
 * per term, so this bounds it (`a.a.a…` of 199 characters is 1 term).
 */
export const MAX_SEARCH_TERMS = 16;

/**
 * The words of a search, split on white space and control characters: the index's
 * tokenizer never keeps a control character in a word, and FTS5 reads a NUL as the
 * end of the query (an unterminated string, which failed the whole read).
 */
export function searchWords(search: string): string[] {
  return search.split(/[\s\u0000-\u001f\u007f]+/).filter((w) => w !== "");
}

/**
 * A term: a run of letters, digits and private-use characters, what SQLite's unicode61
 * tokenizer (the ledger index's, categories `L* N* Co`) keeps as one token and what
 * splits at anything else. One character class repeated: linear, nothing to backtrack.
 */
const TERM = /[\p{L}\p{N}\p{Co}]+/gu;

/**
 * The different terms of a search's first MAX_SEARCH_WORDS words, lower-cased, in order
 * (a term repeated counts once).
 *
 * @example searchTerms('pull_request "Main" main') // ["pull", "request", "main"]
 */
export function searchTerms(search: string): string[] {
  const seen = new Set<string>();
  for (const word of searchWords(search).slice(0, MAX_SEARCH_WORDS)) for (const m of word.matchAll(TERM)) seen.add(m[0].toLowerCase());
  return [...seen];
}

/** Why a search text is refused (the rule, as a sentence fragment), or undefined when it is valid. */
export function searchProblem(search: string): string | undefined {
  return searchWordsProblem(search) ?? searchTermsProblem(search);
}

/** Why a search text has too few or too many words or characters (the rule, as a sentence fragment), or undefined. */
export function searchWordsProblem(search: string): string | undefined {
  const n = searchWords(search).length;
  return n === 0 || n > MAX_SEARCH_WORDS || search.length > MAX_SEARCH_CHARS
    ? `must be 1 to ${MAX_SEARCH_WORDS} words of at most ${MAX_SEARCH_CHARS} characters in all`
    : undefined;
}

/** How many different terms a search of valid words has when that is more than MAX_SEARCH_TERMS, else undefined. */
export function searchTermsOver(search: string): number | undefined {
  const terms = searchTerms(search).length;
  return terms > MAX_SEARCH_TERMS ? terms : undefined;
}

/** Why a search of valid words has too many terms (the rule, as a sentence fragment), or undefined. */
export function searchTermsProblem(search: string): string | undefined {
  const terms = searchTermsOver(search);
  return terms === undefined
    ? undefined
    : `has ${terms} different terms and may have at most ${MAX_SEARCH_TERMS} (a term is a run of letters and digits: a.b.c is 3)`;
}

/** A delivery id as `DeliveryQuery.before` names it: letters, digits and `-`, 1 to 100 characters. */
const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;

/** Why a `before` value is refused (the rule, as a sentence fragment), or undefined when it can name a delivery. */
export function beforeProblem(before: string): string | undefined {
  return DELIVERY_ID.test(before) ? undefined : "must be the id of a delivery (letters, digits and -)";
}

/**
 * The codes a delivery status filter (`DeliveryQuery.status`) names: an exact code
 * (`404` → [404, 404]) or a class in either case (`4xx`, `4XX` → [400, 499]); undefined
 * when it is neither. The ledger API and the dashboard both read the filter with it.
 */
export function statusRange(status: string): readonly [number, number] | undefined {
  if (/^[1-5]\d\d$/.test(status)) return [Number(status), Number(status)];
  const cls = /^([1-5])xx$/i.exec(status);
  return cls ? [Number(cls[1]) * 100, Number(cls[1]) * 100 + 99] : undefined;
}

/** Why a status filter is refused (the rule, as a sentence fragment), or undefined when it is valid. */
export function statusProblem(status: string): string | undefined {
  return statusRange(status) ? undefined : "must be an HTTP status (404) or a class (4xx)";
}

/** Filters of a delivery listing (all optional; newest first). */
export interface DeliveryQuery {
  /** 1–500; default 50. */
  limit?: number;
  /** Only deliveries received strictly before this one (its id): the next page. */
  before?: string;
  /** Hook name as the ledger records it (`wake`, `agent`, a mapped name). */
  hook?: string;
  /** An exact status code (`404`) or a class (`2xx`, `4xx`, `5xx`, any case): see statusRange. */
  status?: string;
  /** ISO-8601: only deliveries received at or after this time. */
  since?: string;
  /**
   * Words to find in the hook name, the event, the status code or the body text (its first
   * 64 KiB): every term of them (searchTerms), matched by the ledger's full-text index —
   * whole in SQLite's, also as a prefix in Postgres's.
   */
  search?: string;
}

/** One ledger row (SPEC §11). */
export interface DeliverySummary {
  id: string;
  /** ISO-8601 UTC. */
  receivedAt: string;
  method: string;
  /** The request path relative to the gateway, token redacted. */
  url: string;
  /** Hook name, when the path named one. */
  hook?: string;
  /** Id of the mapping that matched, if any. */
  mappingId?: string;
  /** Client key (address) the throttle used. */
  client: string;
  status: number;
  /** Error code of a refused request (`not_found`, `unauthorized`, …). */
  code?: string;
  latencyMs: number;
  idempotencyKey?: string;
  /** Runs the request started (several for a fan-out). */
  runIds: string[];
  /** Id of the delivery this one replays. */
  replayOf?: string;
  /** What happened at the sender (`push`, `pull_request.opened`, `invoice.paid`), rendered by the mapping's `event` template. */
  event?: string;
  /** True when the answer was an idempotent repeat of an earlier request's (same key, same run; nothing new started). */
  repeat?: boolean;
  /** True when the request asked to wait for its run (`Prefer: wait`) and the answer waited: its latency is not accept latency. */
  waited?: boolean;
  /** True when the request was refused before it authenticated (401, 429, a bad signature): kept without its body, in a bounded share of the ledger. */
  refused?: boolean;
  /** How many requests the row stands for, when more than one: a throttled client's repeated 429s are one counted row. */
  count?: number;
  /** ISO-8601 UTC time of the last request a counted row stands for. */
  lastAt?: string;
}

export interface DeliveryDetail extends DeliverySummary {
  /** Request headers, lower-case names, every credential/signature/cookie value redacted. */
  headers: Record<string, string>;
  /** The raw body as UTF-8 text; absent when bodies are not stored (`hooks.ledger.storeBodies: false`) or not UTF-8. */
  body?: string;
  /** The body in base64 when it is not valid UTF-8. */
  bodyBase64?: string;
  /** The answer the sender got. */
  response?: unknown;
  /** The answer's headers (lower-case names), when the ledger recorded them. */
  responseHeaders?: Record<string, string>;
}

export interface RunQuery {
  /** 1–500; default 50. */
  limit?: number;
  /** One run status (`queued`, `running`, `succeeded`, `failed`, `timed_out`, `interrupted`). */
  status?: string;
}

/** A run as the inspector lists it: the public run view, and the delivery that started it when the ledger knows. */
export interface RunSummary extends RunView {
  deliveryId?: string;
}

/** One effective mapping, in match order. */
export interface MappingSummary {
  id: string;
  /** `config`, `preset:<name>` or `plugin:<id>/<preset>`. */
  origin: string;
  /** Human-readable match rules (`path github`, `header x-github-event=push`). */
  match: string[];
  action: "wake" | "agent";
  /** Verification scheme of the mapping's path, if any (`github`, `stripe`, …). */
  verify?: string;
  /** Set when an earlier mapping always matches first. */
  shadowedBy?: string;
}

export interface DryRunInput {
  /** The hook name (sub-path after `hooks.path`). */
  hook: string;
  body: string;
  headers: Record<string, string>;
  /** The URL the request was sent to (a stored delivery's `url`): its query parameters are the dry run's, read as a live request's are. None: no query. */
  url?: string;
}

/** The dry run's verdict: what the request would do, as text lines and as data. */
export interface DryRunView {
  ok: boolean;
  /** The dry run's report, one line each (what `gateway webhooks test` prints). */
  lines: string[];
  mappingId?: string;
  action?: Record<string, unknown>;
}

/** The answer a replay got (a new delivery, linked to the original by `replayOf`). */
export interface ReplayResult {
  deliveryId: string;
  status: number;
  body: unknown;
}

/** Why a delivery cannot be replayed, as `replay` rejects with it (any Error with these fields: a 4xx `status` and a `code`). */
export interface ReplayRefusal {
  message: string;
  /** `delivery_not_replayable`, `delivery_body_not_stored`, … */
  code: string;
  /** 400–499. */
  status: number;
}

/** True for a `replay` rejection that states why the delivery cannot be replayed (not a failure of the plugin). */
export function isReplayRefusal(e: unknown): e is ReplayRefusal {
  const r = e as Partial<ReplayRefusal> | null | undefined;
  return e instanceof Error && typeof r?.code === "string" && typeof r.status === "number" && r.status >= 400 && r.status <= 499;
}

/** Counts for `/api/status` and the dashboard's overview. */
export interface HooksSummary {
  lastDeliveryAt?: string;
  queued: number;
  running: number;
  /** Runs that failed or timed out in the last hour. */
  failedLastHour: number;
  ledgerEntries: number;
}

export interface HookInspector {
  listDeliveries(query: DeliveryQuery): DeliverySummary[];
  getDelivery(id: string): DeliveryDetail | undefined;
  /**
   * Runs a stored delivery again through today's mappings; undefined when the id is
   * unknown. A delivery that cannot be replayed (refused at authentication, stored
   * without its body) rejects with a ReplayRefusal: its message is one sentence for
   * the operator, safe to show.
   */
  replay(id: string): Promise<ReplayResult | undefined>;
  /** Optional (bulk replay by filter, src/intake/bulk-replay.ts): what the filter would replay; throws the API's HookError (a bad filter, over the cap). */
  previewBulkReplay?(filter: BulkReplayFilter): Promise<BulkReplayPreview>;
  /** Optional: replays what the preview of `confirm` counted, once; throws the API's HookError (changed, expired). */
  bulkReplay?(filter: BulkReplayFilter, confirm: string): Promise<BulkReplayResult>;
  listRuns(query: RunQuery): RunSummary[];
  getRun(id: string): RunSummary | undefined;
  mappings(): MappingSummary[];
  dryRun(input: DryRunInput): Promise<DryRunView>;
  summary(): HooksSummary;
  /** Calls `listener` with each new ledger row as it is recorded; returns the unsubscribe function. */
  subscribe(listener: (delivery: DeliverySummary) => void): () => void;
  /**
   * Optional (added in 1.3 without a version bump: hosts check for it): calls
   * `listener` with a run each time it starts or finishes; returns the unsubscribe
   * function. `deliveryId` is absent when the run changed before the ledger recorded
   * its request (the request's row then carries the status). A host without it
   * shows run status as of the page load.
   */
  subscribeRuns?(listener: (run: RunSummary) => void): () => void;
}
