/**
 * The part of OpenClaw's plugin API this adapter uses, as structural types (learned
 * from the type declarations of the pinned `openclaw` package; the package itself is
 * not a dependency: OpenClaw hands `register(api)` this object at run time).
 *
 * Only src/hosts/openclaw/ knows these shapes. Everything optional here is optional
 * because OpenClaw leaves it out in some registration modes (CLI metadata,
 * discovery) or because a version may lack it; the adapter checks before use.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Command } from "commander";

/** OpenClaw's plugin logger: one string per line, no structured meta. */
export interface OpenClawLogger {
  debug?: (message: string) => void;
  info: (message: string) => void;
  warn: (message: string) => void;
  error: (message: string) => void;
}

export interface OpenClawHttpRoute {
  path: string;
  auth: "gateway" | "plugin";
  match?: "exact" | "prefix";
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<boolean | void> | boolean | void;
}

export interface OpenClawServiceContext {
  stateDir: string;
  logger: OpenClawLogger;
}

export interface OpenClawService {
  id: string;
  start: (ctx: OpenClawServiceContext) => void | Promise<void>;
  stop?: (ctx: OpenClawServiceContext) => void | Promise<void>;
}

export interface OpenClawCliContext {
  program: Command;
}

export interface OpenClawCliOptions {
  /** The command the registrar's commands go under (OpenClaw passes it as `program`). */
  parentPath?: readonly string[];
  commands?: readonly string[];
  descriptors?: ReadonlyArray<{ name: string; description: string; hasSubcommands: boolean }>;
}

/** `status` "pending" means the wait ended before the run did (the run goes on). */
export interface OpenClawWaitResult {
  status: "ok" | "error" | "timeout" | "pending";
  error?: string;
  /** Set when the run itself ended (a wait that only ran out of time has none). */
  endedAt?: number;
}

export interface OpenClawSubagentRunParams {
  sessionKey: string;
  message: string;
  provider?: string;
  model?: string;
  deliver?: boolean;
  idempotencyKey?: string;
}

export interface OpenClawRuntime {
  version?: string;
  system: {
    enqueueSystemEvent(text: string, options: { sessionKey: string; agentId?: string; contextKey?: string | null }): boolean;
    requestHeartbeat(options: { source: string; intent: string; reason?: string; agentId?: string; sessionKey?: string }): void;
  };
  subagent: {
    run(params: OpenClawSubagentRunParams): Promise<{ runId: string; sessionKey?: string }>;
    waitForRun(params: { runId: string; timeoutMs?: number }): Promise<OpenClawWaitResult>;
    getSessionMessages(params: { sessionKey: string; limit?: number }): Promise<{ messages: unknown[] }>;
  };
  state?: { resolveStateDir?: (env?: NodeJS.ProcessEnv) => string };
  /** OpenClaw's config writer (its `openclaw config set` path): a focused mutation of the source config, every other key kept. */
  config?: {
    /** The current process config snapshot (refreshed by a write of this process). */
    current?: () => Readonly<Record<string, unknown>>;
    mutateConfigFile?: (params: {
      afterWrite: { mode: "auto" } | { mode: "restart" | "none"; reason: string };
      mutate: (draft: Record<string, unknown>) => void;
    }) => Promise<unknown>;
  };
  /** True when OpenClaw keeps debug lines (verbose mode, or a file log level of debug). */
  logging?: { shouldLogVerbose?: () => boolean };
  gateway?: { request?: <T = unknown>(method: string, params?: Record<string, unknown>) => Promise<T> };
  agent?: {
    session?: { getSessionEntry?: (params: { sessionKey: string; agentId?: string }) => Record<string, unknown> | undefined };
  };
}

/** Lifecycle hook events the adapter follows (`api.on`). */
export type OpenClawHookName = "gateway_start" | "gateway_stop" | "session_start" | "session_end" | "heartbeat_prompt_contribution" | "llm_input";

export interface OpenClawPluginApi {
  id: string;
  /** "full" for the running gateway; "cli-metadata", "discovery", … when OpenClaw only collects registrations. */
  registrationMode?: string;
  /** OpenClaw's whole config. */
  config: Readonly<Record<string, unknown>>;
  /** `plugins.entries.<id>.config`. */
  pluginConfig?: Record<string, unknown>;
  runtime: OpenClawRuntime;
  logger: OpenClawLogger;
  registerHttpRoute(route: OpenClawHttpRoute): void;
  registerService(service: OpenClawService): void;
  registerCli(registrar: (ctx: OpenClawCliContext) => void | Promise<void>, opts?: OpenClawCliOptions): void;
  on?(hookName: OpenClawHookName, handler: (event: Record<string, unknown>, ctx?: Record<string, unknown>) => unknown): void;
  resolvePath?(input: string): string;
  /** A gateway RPC method (`scope`: the operator scope OpenClaw requires of the caller before the handler runs). */
  registerGatewayMethod?(method: string, handler: OpenClawGatewayMethodHandler, opts?: { scope?: "operator.read" | "operator.write" }): void;
  /** The Control UI's contributions (a sidebar tab whose frame is one of the plugin's `auth: "gateway"` routes). */
  session?: { controls?: { registerControlUiDescriptor?(descriptor: OpenClawControlUiDescriptor): void } };
}

/** What a gateway method's handler is given: its params, how to answer (`respond(ok, payload, error)`), the calling connection. */
export type OpenClawGatewayMethodHandler = (opts: {
  params: Record<string, unknown>;
  respond: (ok: boolean, payload?: unknown, error?: { code: string; message: string; details?: unknown }) => void;
  client: { clientIp?: string; connId?: string } | null;
}) => Promise<void> | void;

/** A Control UI contribution (`surface: "tab"`: a sidebar tab; `path` a route of the plugin, rendered in a sandboxed frame). */
export interface OpenClawControlUiDescriptor {
  id: string;
  surface: "tab";
  label: string;
  description?: string;
  slug?: string;
  icon?: string;
  path?: string;
  group?: "control" | "agent";
  order?: number;
  requiredScopes?: string[];
}
