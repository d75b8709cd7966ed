/**
 * Answers HTTP protocol errors that Node's parser detects before (or while) a
 * request reaches any route — a malformed chunk, oversized headers, a garbled
 * request line — in the same shape as every other response (SPEC §4.2): JSON
 * `{ ok:false, code, error }` with `X-Request-Id`, then the connection is closed.
 * Without this, Node writes a bare `400 Bad Request` / `431` with no body.
 */
import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import { maxHeaderSize, type ServerResponse } from "node:http";
import type { HostLogger } from "../../host-contract/host-api";
import { createErrorCatalogue } from "../../host-contract/error-catalogue";
import { errorBody } from "../../host-contract/json-response";

export interface ClientErrorReply {
  status: number;
  code: string;
  error: string;
}

/** The protocol errors the gateway answers itself (docs/errors.md, "Answered by the gateway"). */
export const CLIENT_ERROR_CATALOGUE = {
  headersTooLarge: { status: 431, code: "headers_too_large", message: "The request headers are larger than the server accepts ({maxKb} KB in total)." },
  notReceivedInTime: { status: 408, code: "request_timeout", message: "The request was not received in time." },
  chunkedBodyMalformed: { status: 400, code: "invalid_request", message: "The chunked request body is malformed." },
  notHttp11: { status: 400, code: "invalid_request", message: "The request is not valid HTTP/1.1." },
} as const;

const replies = createErrorCatalogue(CLIENT_ERROR_CATALOGUE, ({ entry, message }): ClientErrorReply => ({
  status: entry.status,
  code: entry.code,
  error: message,
}));

/** Status, code and sentence for a parser error code (`HPE_*`, `ERR_HTTP_REQUEST_TIMEOUT`). */
export function clientErrorReply(errorCode: string | undefined): ClientErrorReply {
  switch (errorCode) {
    case "HPE_HEADER_OVERFLOW":
      return replies.headersTooLarge({ maxKb: Math.floor(maxHeaderSize / 1024) });
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "HPE_HEADERS_TIMEOUT":
      return replies.notReceivedInTime();
    case "HPE_INVALID_CHUNK_SIZE":
    case "HPE_INVALID_EOF_STATE":
      return replies.chunkedBodyMalformed();
    default:
      return replies.notHttp11();
  }
}

const REASONS: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

/** The complete raw HTTP/1.1 response (head and JSON body) for a protocol error. */
export function clientErrorResponse(reply: ClientErrorReply, requestId: string): string {
  const body = JSON.stringify(errorBody(reply.code, reply.error));
  return [
    `HTTP/1.1 ${reply.status} ${REASONS[reply.status] ?? "Error"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/**
 * A `clientError` listener for an http.Server. When a route already answered
 * part of the exchange the socket is just closed; when a request is in flight,
 * its `X-Request-Id` is reused so the reply matches the request's log line.
 * Nothing of the raw request is logged (only the parser code and status).
 */
export function createClientErrorHandler(opts: { logger: HostLogger; idGen?: () => string }): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  const idGen = opts.idGen ?? randomUUID;
  return (err, socket) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const existing = inFlight?.getHeader("x-request-id");
    const requestId = typeof existing === "string" && existing !== "" ? existing : idGen();
    const reply = clientErrorReply(err.code);
    opts.logger.info("client protocol error answered", { requestId, status: reply.status, code: reply.code, parserCode: err.code });
    socket.end(clientErrorResponse(reply, requestId));
  };
}
