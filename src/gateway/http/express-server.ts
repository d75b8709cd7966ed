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
 *   const server = createExpressServer(app);
 *   server.listen(18789, "127.0.0.1");
 */
import http from "node:http";
import type { Express } from "express";

export function createExpressServer(app: Express): http.Server {
  // `new IncomingMessage(socket)` by node:http builds a real IncomingMessage whose prototype is app.request.
  function Request(...args: ConstructorParameters<typeof http.IncomingMessage>): http.IncomingMessage {
    return Reflect.construct(http.IncomingMessage, args, Request) as http.IncomingMessage;
  }
  Request.prototype = app.request;
  function Response(...args: ConstructorParameters<typeof http.ServerResponse>): http.ServerResponse {
    return Reflect.construct(http.ServerResponse, args, Response) as http.ServerResponse;
  }
  Response.prototype = app.response;
  return http.createServer(
    { IncomingMessage: Request as unknown as typeof http.IncomingMessage, ServerResponse: Response as unknown as typeof http.ServerResponse },
    app,
  );
}
