/**
 * Where a request goes, decided from the path below the mount point
 * (`req.path`): the direct hooks, the run routes (`runs`, `runs/<id>`), the
 * delivery ledger (`deliveries`, `deliveries/<id>`, `deliveries/<id>/replay`, the bulk replay
 * `deliveries/replay`), or a mapped hook name. Delivery ids are UUIDs, so `replay` names none. The whole `deliveries/` namespace belongs to the ledger.
 */
import { hookErrors, type HookError } from "./errors";
import { hookNameOf, type HookNameRefusal } from "./hook-name";

export type HookRoute =
  | { kind: "wake" }
  | { kind: "agent" }
  | { kind: "run"; runId: string }
  | { kind: "runs" }
  | { kind: "deliveries" }
  | { kind: "delivery"; id: string }
  | { kind: "replay"; id: string }
  | { kind: "bulkReplay" }
  | { kind: "mapped"; name: string };

/** Routes that read the run store or the ledger (and replay): answered by src/intake/ledger/, never recorded in the ledger themselves. */
export type LedgerRoute = Extract<HookRoute, { kind: "run" | "runs" | "deliveries" | "delivery" | "replay" | "bulkReplay" }>;

/** The run-status route: `runs/<id>`. */
const RUN_PATH = /^runs\/([^/]+)$/;
/** `deliveries/<id>/replay`; any other path below `deliveries/` is a delivery id (unknown ones are 404). */
const REPLAY_PATH = /^deliveries\/([^/]+)\/replay$/;
const DELIVERIES_PREFIX = "deliveries/";
/** Bulk replay by filter (src/intake/bulk-replay.ts). */
const BULK_REPLAY_PATH = "deliveries/replay";

/** A path that names no hook (404), or its route. */
export type ParsedHookRoute = { ok: true; route: HookRoute } | { ok: false; error: HookError };

/** The sentence of each refusal of src/core/hook-name.ts. */
const REFUSED_RULE: Record<Exclude<HookNameRefusal, "undecodable" | "empty">, string> = {
  "encoded-slash": "contains an encoded / (%2F) inside a segment",
  "dot-segment": "contains a .. segment",
  "control-character": "contains a control character",
};

/**
 * The route of the raw sub-path below the mount point (`req.path`), from the one
 * hook name of src/core/hook-name.ts; a path that names no hook (the mount point
 * itself, an undecodable path, `..`, `%2F`, a control character) is a 404.
 *
 * @example parseHookRoute("/github//push/", "/hooks") // { ok: true, route: { kind: "mapped", name: "github/push" } }
 */
export function parseHookRoute(reqPath: string, hooksPath: string): ParsedHookRoute {
  const named = hookNameOf(reqPath);
  if (!named.ok) {
    const { reason } = named;
    if (reason === "empty") return { ok: false, error: hookErrors.hooksPathItself({ hooksPath }) };
    if (reason === "undecodable") return { ok: false, error: hookErrors.hookPathUndecodable({ hooksPath }) };
    return { ok: false, error: hookErrors.hookPathRefused({ hooksPath, rule: REFUSED_RULE[reason] }) };
  }
  return { ok: true, route: routeOfName(named.name) };
}

/** The route of a hook name (already normalised). */
export function routeOfName(name: string): HookRoute {
  if (name === "wake") return { kind: "wake" };
  if (name === "agent") return { kind: "agent" };
  const run = RUN_PATH.exec(name);
  if (run) return { kind: "run", runId: run[1] };
  if (name === "runs") return { kind: "runs" };
  if (name === "deliveries") return { kind: "deliveries" };
  if (name === BULK_REPLAY_PATH) return { kind: "bulkReplay" };
  const replay = REPLAY_PATH.exec(name);
  if (replay) return { kind: "replay", id: replay[1] };
  if (name.startsWith(DELIVERIES_PREFIX)) return { kind: "delivery", id: name.slice(DELIVERIES_PREFIX.length) };
  return { kind: "mapped", name };
}

/** Hook name used in logs, events, idempotency scopes and the wrapper's source metadata. */
export function hookName(route: HookRoute): string {
  switch (route.kind) {
    case "wake":
    case "agent":
      return route.kind;
    case "run":
    case "runs":
      return "runs";
    case "deliveries":
    case "delivery":
    case "replay":
    case "bulkReplay":
      return "deliveries";
    case "mapped":
      return route.name;
  }
}

/** True for the run and ledger routes (src/intake/ledger/). */
export function isLedgerRoute(route: HookRoute | undefined): route is LedgerRoute {
  return route !== undefined && route.kind !== "wake" && route.kind !== "agent" && route.kind !== "mapped";
}

/** The one method a route accepts: GET for the run and ledger reads, POST for everything else (replay included). */
export function allowedMethod(route: HookRoute): "GET" | "POST" {
  return isLedgerRoute(route) && route.kind !== "replay" && route.kind !== "bulkReplay" ? "GET" : "POST";
}

/** How a 405 names the ledger routes that carry an id (the others are named by their hook name). */
const LEDGER_ROUTE_NAMES: Partial<Record<HookRoute["kind"], string>> = {
  delivery: "deliveries/<id>",
  replay: "deliveries/<id>/replay",
  bulkReplay: BULK_REPLAY_PATH,
};

/** The 405 of a route asked with another method than its one (`Allow` names it). */
export function methodNotAllowed(route: HookRoute, hooksPath: string): HookError {
  const allowed = allowedMethod(route);
  const headers = { headers: { Allow: allowed } };
  if (route.kind === "run") return hookErrors.methodNotAllowedOnRunStatus({ allowed }, headers);
  if (isLedgerRoute(route))
    return hookErrors.methodNotAllowedOnLedger({ allowed, route: `${hooksPath}/${LEDGER_ROUTE_NAMES[route.kind] ?? hookName(route)}` }, headers);
  return hookErrors.methodNotAllowedOnHook({ allowed }, headers);
}
