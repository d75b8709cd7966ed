/**
 * The event of a mapped request (SPEC §6.1 `event`): what happened at the sender,
 * stored on the ledger row and shown by the dashboard, the API and the CLI. A
 * mapping's `event` template names it; without one, the mapping's verify scheme
 * has a default — github: the `X-GitHub-Event` header plus `.` and the body's
 * `action` when there is one (`pull_request.opened`, `push`); stripe and
 * standard-webhooks: the body's `type` (`invoice.paid`); slack: `event.type` of an
 * Events API body (else its `type`, e.g. `url_verification`). Other schemes and
 * mappings without verify have none. At most MAX_EVENT_CHARS characters, trimmed.
 *
 * @example defaultEvent("github", { headers: { "x-github-event": "pull_request" }, payload: { action: "opened" } }) // "pull_request.opened"
 */
import type { VerifyScheme } from "../safety/signatures/types";

export const MAX_EVENT_CHARS = 200;

interface EventSource {
  headers: Readonly<Record<string, string | undefined>>;
  payload: unknown;
}

const field = (v: unknown, key: string): unknown =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

/** An event as stored: trimmed, at most MAX_EVENT_CHARS; undefined when empty. */
export function eventName(value: string | undefined): string | undefined {
  const t = value?.trim();
  return t ? t.slice(0, MAX_EVENT_CHARS) : undefined;
}

export function defaultEvent(scheme: VerifyScheme | undefined, req: EventSource): string | undefined {
  switch (scheme) {
    case "github": {
      const kind = text(req.headers["x-github-event"]);
      const action = text(field(req.payload, "action"));
      return eventName(kind === undefined ? undefined : action === undefined ? kind : `${kind}.${action}`);
    }
    case "stripe":
    case "standard-webhooks":
      return eventName(text(field(req.payload, "type")));
    case "slack":
      return eventName(text(field(field(req.payload, "event"), "type")) ?? text(field(req.payload, "type")));
    default:
      return undefined;
  }
}
