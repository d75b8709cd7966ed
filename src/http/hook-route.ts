/**
 * Where a request goes, decided from the path below the mount point
 * (`req.path`): the direct hooks, the run routes (`runs`, `runs/<id>`), the
 * delivery ledger (`deliveries`, `deliveries/<id>`, `deliveries/<id>/replay`), or a
 * mapped hook name. The whole `deliveries/` namespace belongs to the ledger.
 */

export type HookRoute =
  | { kind: "wake" }
  | { kind: "agent" }
  | { kind: "run"; runId: string }
  | { kind: "runs" }
  | { kind: "deliveries" }
  | { kind: "delivery"; id: string }
  | { kind: "replay"; id: string }
  | { kind: "mapped"; name: string };

/** Routes that read the run store or the ledger (and replay): answered by src/http/ledger/, never recorded in the ledger themselves. */
export type LedgerRoute = Extract<HookRoute, { kind: "run" | "runs" | "deliveries" | "delivery" | "replay" }>;

/** The run-status route: `runs/<id>`. */
const RUN_PATH = /^runs\/([^/]+)$/;
/** `deliveries/<id>/replay`; any other path below `deliveries/` is a delivery id (unknown ones are 404). */
const REPLAY_PATH = /^deliveries\/([^/]+)\/replay$/;
const DELIVERIES_PREFIX = "deliveries/";

/**
 * Parses the sub-path (slashes trimmed, percent-decoded). `undefined` for the
 * mount point itself (`POST /hooks`) or an undecodable path: both are 404.
 *
 * @example parseHookRoute("/github/push") // { kind: "mapped", name: "github/push" }
 */
export function parseHookRoute(reqPath: string): HookRoute | undefined {
  let name: string;
  try {
    name = decodeURIComponent(reqPath.replace(/^\/+|\/+$/g, ""));
  } catch {
    return undefined;
  }
  if (name === "") return undefined;
  if (name === "wake") return { kind: "wake" };
  if (name === "agent") return { kind: "agent" };
  const run = RUN_PATH.exec(name);
  if (run) return { kind: "run", runId: run[1] };
  if (name === "runs") return { kind: "runs" };
  if (name === "deliveries") return { kind: "deliveries" };
  const replay = REPLAY_PATH.exec(name);
  if (replay) return { kind: "replay", id: replay[1] };
  if (name.startsWith(DELIVERIES_PREFIX)) return { kind: "delivery", id: name.slice(DELIVERIES_PREFIX.length) };
  return { kind: "mapped", name };
}

/** True when the sub-path is not valid percent-encoded UTF-8 (`/%ZZ`, `/%E0%A4%A`): a 404 of its own. */
export function isUndecodableHookPath(reqPath: string): boolean {
  try {
    decodeURIComponent(reqPath);
    return false;
  } catch {
    return true;
  }
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
      return "deliveries";
    case "mapped":
      return route.name;
  }
}

/** True for the run and ledger routes (src/http/ledger/). */
export function isLedgerRoute(route: HookRoute | undefined): route is LedgerRoute {
  return route !== undefined && route.kind !== "wake" && route.kind !== "agent" && route.kind !== "mapped";
}

/** The one method a route accepts: GET for the run and ledger reads, POST for everything else (replay included). */
export function allowedMethod(route: HookRoute): "GET" | "POST" {
  return isLedgerRoute(route) && route.kind !== "replay" ? "GET" : "POST";
}
