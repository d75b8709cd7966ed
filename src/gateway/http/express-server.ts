/**
 * The gateway's HTTP server, built so that requests and responses are born with
 * Express's prototypes (`app.request`, `app.response`). Express otherwise swaps the
 * prototype of every `req` and `res` it receives (`Object.setPrototypeOf`), which
 * makes V8 give each of them a fresh hidden class and costs a large share of a
 * small request's time; a swap to the prototype an object already has is a no-op.
 * Behaviour is unchanged: the objects are the same node:http objects with the same
 * prototype chain Express would have given them.
 *
 * @example
 *   const server = createExpressServer(createGatewayApp(options));
 *   server.listen(18789, "127.0.0.1");
 */
import http from "node:http";
import type { GatewayApp } from "./create-app";

type Ctor<T> = new (...args: never[]) => T;

export function createExpressServer(gatewayApp: GatewayApp): http.Server {
  const app = gatewayApp.express;
  // node:http's IncomingMessage and ServerResponse are plain constructor functions: these
  // run them on `this`, so node:http builds real ones whose prototype is Express's.
  function Request(this: http.IncomingMessage, socket: import("node:net").Socket): void {
    (http.IncomingMessage as unknown as (this: http.IncomingMessage, socket: import("node:net").Socket) => void).call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown): void {
    (http.ServerResponse as unknown as (this: http.ServerResponse, req: http.IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  Response.prototype = app.response;
  return http.createServer(
    { IncomingMessage: Request as unknown as Ctor<http.IncomingMessage> as typeof http.IncomingMessage, ServerResponse: Response as unknown as typeof http.ServerResponse },
    gatewayApp,
  );
}
