/** The collaborators of the hooks router (src/http/router.ts) and its per-request state. */
import type { RequestHandler } from "express";
import type { HookError } from "../core/errors";
import type { ResolvedHooksConfig } from "../config/types";
import type { PluginEmitter } from "../core/events";
import type { ModuleLogger } from "../core/logger";
import type { HostRuntime } from "../host-contract/host-api";
import type { Dispatcher, IdempotencyGuard, MappedHookResolver, PipelineMetrics, RunLookup } from "../core/ports";
import type { Authenticator } from "./auth/authenticate";
import type { PathVerifier, SignatureGate } from "./auth/signature-gate";
import type { HandshakeGate, MetaHandshake } from "./handshake";
import type { HookRoute } from "./hook-route";
import type { RequestRecord } from "./request-reporter";
import type { WaitGate } from "./responses/prefer-wait";
import type { LedgerAccess, LedgerFacts } from "./ledger";

export interface HooksRouterDeps {
  config: ResolvedHooksConfig;
  runtime: HostRuntime;
  logger: ModuleLogger;
  emitter: PluginEmitter;
  dispatcher: Dispatcher;
  /** Resolver of mapped hooks; without it every name but wake/agent is 404. */
  mappings?: MappedHookResolver;
  /** Durable idempotency; without it idempotency headers are ignored. */
  idempotency?: IdempotencyGuard;
  /** Run lookup for `GET {path}/runs/<id>`. */
  runs?: RunLookup;
  /** The delivery ledger (SPEC §11): records each hook request; serves `runs`, `deliveries` and replay. */
  ledger?: LedgerAccess;
  /** True once the gateway is stopping: new requests get 503 `shutting_down`. */
  isShuttingDown?: () => boolean;
  /** Verified paths (SPEC §10): requests there are authenticated by signature, not by the hook token. */
  signatures?: SignatureGate;
  /** Meta verification GETs (SPEC §12) and `Prefer: wait` on agent hooks. */
  handshakes?: HandshakeGate;
  waits?: WaitGate;
  /** Applied right after successful authentication. */
  rateLimiter?: RequestHandler;
  /** Every answered request and refused signature (SPEC §11). */
  metrics?: PipelineMetrics;
  /** Milliseconds since the epoch; default Date.now. */
  clock?: () => number;
  /** Request ids and default session-key uuids; default crypto.randomUUID. */
  idGen?: () => string;
}

export interface RequestState extends RequestRecord {
  route?: HookRoute;
  /** The 404 of a path that names no hook (SPEC §4.1 "One identity per hook"). */
  routeError?: HookError;
  /** The credentials verdict, taken before routing so failures count on every route and method. */
  auth?: ReturnType<Authenticator["authenticate"]>;
  /** Set on a verified path: the body's signature is checked instead of a token. */
  signedBy?: PathVerifier;
  handshake?: MetaHandshake;
  facts: LedgerFacts;
}
