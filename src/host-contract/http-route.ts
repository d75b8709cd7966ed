/** A plugin's HTTP route in the host contract (host API 2.0; docs/host-contract.md `registerHttpRoute`). */
import type { IncomingMessage, ServerResponse } from "node:http";

/** What the host tells a route's handler about the request it hands over (host API 2.0). */
export interface HttpRouteContext {
  /**
   * The client's address: the socket's, or — only when the request came through a proxy the host trusts — the
   * address that proxy reports (src/host-contract/client-address.ts).
   */
  readonly clientAddress: string;
}

/**
 * A plugin route's handler (host API 2.0; before, an Express router): the host's own node:http request and
 * response, with `req.url` as the client sent it (the prefix included; origin form, or absolute form from a
 * forward proxy) and the body unread. The handler answers every request it is handed, on `res`, and does not throw.
 */
export type HttpRouteHandler = (req: IncomingMessage, res: ServerResponse, context: HttpRouteContext) => void;

export interface HttpRouteRegistration {
  /** Normalised path prefix, e.g. "/hooks". Must not collide with other routes. */
  prefix: string;
  /** Handed every request whose path is `prefix` or below it (`prefix/…`), compared case-sensitively. */
  handler: HttpRouteHandler;
}
