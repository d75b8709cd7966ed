/**
 * Reads a request body with a hard size limit and a deadline (SPEC §4.1):
 * a `Content-Length` over the limit is refused before reading; a streamed body
 * is cut off at the limit (never buffered past it); a body that does not
 * complete in time is a 408. On refusal the stream is left paused: the caller
 * answers with `Connection: close` so the rest is never read.
 */
import type { IncomingMessage } from "node:http";
import { bodySizeRefusal } from "../../actions/body/body-size";
import { err, hookErrors, ok, type Result } from "../../core/errors";

export interface ReadBodyOptions {
  /** Bytes allowed (`hooks.maxBodyBytes`). */
  limit: number;
  /** Deadline for the whole body (`hooks.bodyTimeoutMs`). */
  timeoutMs: number;
}

/** The declared length, or undefined when absent/invalid (then the stream decides). */
function declaredLength(req: IncomingMessage): number | undefined {
  const raw = req.headers["content-length"];
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/**
 * Resolves with the whole body, or with the HookError to answer.
 *
 * @example const body = await readBody(req, { limit: 262144, timeoutMs: 30000 });
 */
export function readBody(req: IncomingMessage, options: ReadBodyOptions): Promise<Result<Buffer>> {
  const { limit, timeoutMs } = options;
  const declaredTooLarge = bodySizeRefusal(declaredLength(req) ?? 0, limit);
  if (declaredTooLarge) return Promise.resolve(err(declaredTooLarge));
  if (req.readableEnded) {
    return Promise.resolve(err(hookErrors.bodyAlreadyConsumed()));
  }

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;

    const finish = (result: Result<Buffer>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onAbort);
      req.off("close", onAbort);
      if (!result.ok) req.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      const tooLarge = bodySizeRefusal(size, limit);
      if (tooLarge) {
        chunks.length = 0;
        finish(err(tooLarge));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(ok(Buffer.concat(chunks, size)));
    const onAbort = (): void => finish(err(hookErrors.bodyIncomplete()));
    const timer = setTimeout(() => finish(err(hookErrors.bodyTimedOut({ seconds: timeoutMs / 1000 }))), timeoutMs);

    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onAbort);
    req.on("close", onAbort);
  });
}
