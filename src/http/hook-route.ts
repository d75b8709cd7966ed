/**
 * Where a request goes, decided from the path below the mount point
 * (`req.path`): the direct hooks, the run-status route, or a mapped hook name.
 */

export type HookRoute =
  | { kind: "wake" }
  | { kind: "agent" }
  | { kind: "run"; runId: string }
  | { kind: "mapped"; name: string };

/** The run-status route: `runs/<id>`. */
const RUN_PATH = /^runs\/([^/]+)$/;

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
      return "runs";
    case "mapped":
      return route.name;
  }
}

/** The one method a route accepts: GET for run status, POST for everything else. */
export function allowedMethod(route: HookRoute): "GET" | "POST" {
  return route.kind === "run" ? "GET" : "POST";
}
