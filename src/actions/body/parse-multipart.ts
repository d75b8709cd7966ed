/**
 * `multipart/form-data` bodies of mapped hooks (SPEC §12, §9 "linear, incremental
 * parsing"): busboy reads the parts of the body the pipeline has already read
 * within `hooks.maxBodyBytes` (a body over the limit was refused with 413 while it
 * streamed in). Fields become payload keys, a repeated name an array, in order;
 * any file part → 415 naming the part. Like form bodies, the payload is a
 * null-prototype object.
 *
 * Bounded before and while parsing, so no body below the limits holds the event
 * loop (busboy raises a new error per malformed part and, given the whole body in
 * one call, parses all of it before anyone can stop it — 4 MiB of header-less
 * parts held the loop for 4.8 s):
 * - before: the part delimiters are counted (one `indexOf` pass); more parts than
 *   `MAX_MULTIPART_FIELDS` → 400 at once, nothing parsed;
 * - while: the body is fed to busboy in chunks of `MULTIPART_CHUNK_BYTES`, one
 *   chunk per turn of the event loop, and feeding stops at the first refusal
 *   (a malformed part, a file, a field too large), so at most one chunk is parsed
 *   after it.
 */
import busboy from "busboy";
import { err, hookErrors, ok, type HookError, type Result } from "../../core/errors";
import type { Payload } from "./parse-body";

/** Most fields one multipart body may carry. */
export const MAX_MULTIPART_FIELDS = 1000;
/** Largest single field value, in bytes (the whole body is bounded by hooks.maxBodyBytes as well). */
export const MAX_MULTIPART_FIELD_BYTES = 1024 * 1024;
/** Bytes handed to the parser per turn of the event loop. */
export const MULTIPART_CHUNK_BYTES = 16 * 1024;

export interface MultipartOptions {
  /** Default MULTIPART_CHUNK_BYTES. */
  chunkBytes?: number;
  /** Waits for the next turn of the event loop between chunks; default setImmediate. */
  nextTurn?: () => Promise<void>;
}

const nextImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A part name safe to echo in an error message. */
function printablePart(name: string | undefined): string | undefined {
  return name !== undefined && /^[\w.\-[\]]{1,64}$/.test(name) ? name : undefined;
}

/** The boundary parameter of a multipart Content-Type (quoted or not), as busboy reads it. */
function boundaryOf(contentType: string): string | undefined {
  for (const param of contentType.split(";").slice(1)) {
    const eq = param.indexOf("=");
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== "boundary") continue;
    const value = param.slice(eq + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}

/** More than `max` part delimiters (`--boundary`) in the body: counted, linear, nothing parsed. */
function hasMorePartsThan(raw: Buffer, boundary: string, max: number): boolean {
  const delimiter = Buffer.from(`--${boundary}`, "latin1");
  let parts = -1; // the closing delimiter is not a part
  for (let at = raw.indexOf(delimiter); at !== -1; at = raw.indexOf(delimiter, at + delimiter.length)) {
    if (++parts > max) return true;
  }
  return false;
}

function createParser(contentType: string): busboy.Busboy | HookError {
  try {
    return busboy({
      headers: { "content-type": contentType },
      limits: { fields: MAX_MULTIPART_FIELDS, fieldSize: MAX_MULTIPART_FIELD_BYTES, fieldNameSize: 200 },
      defParamCharset: "utf8",
    });
  } catch (e) {
    return hookErrors.multipartMalformed({
      reason: e instanceof Error && /boundary/i.test(e.message) ? "the Content-Type has no boundary" : "the Content-Type is not a multipart type busboy reads",
    });
  }
}

/** Listens to the parser: fields into `out`; the first refusal (or the end) settles `done`. */
function collectFields(parser: busboy.Busboy): { out: Payload; done: Promise<Result<Payload>>; settled: () => boolean } {
  const out: Payload = Object.create(null) as Payload;
  let settled = false;
  let resolve!: (r: Result<Payload>) => void;
  const done = new Promise<Result<Payload>>((r) => (resolve = r));
  const settle = (r: Result<Payload>): void => {
    if (settled) return;
    settled = true;
    resolve(r);
  };
  const fail = (e: HookError): void => settle(err(e));
  parser.on("field", (name, value, info) => {
    if (settled) return;
    if (info.valueTruncated) return fail(hookErrors.multipartFieldTooLarge({ part: printablePart(name) ?? "(unnamed)", max: MAX_MULTIPART_FIELD_BYTES }));
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[name] = [prev, value];
  });
  parser.on("file", (name, stream) => {
    // Busboy destroys an unfinished file stream with the parser's error (a body cut
    // mid-file): the request is refused by the parser's own handlers, so the stream's
    // error needs a listener or it would be thrown as an unhandled 'error' event.
    stream.on("error", () => undefined);
    stream.resume();
    const part = printablePart(name);
    fail(part ? hookErrors.multipartFilePart({ part }) : hookErrors.unnamedMultipartFilePart());
  });
  parser.on("fieldsLimit", () => fail(hookErrors.multipartTooManyFields({ max: MAX_MULTIPART_FIELDS })));
  parser.on("error", (e: unknown) => fail(hookErrors.multipartMalformed({ reason: describeBusboyError(e) })));
  parser.on("close", () => settle(ok(out)));
  return { out, done, settled: () => settled };
}

/**
 * @example await parseMultipart(raw, 'multipart/form-data; boundary=x') // ok({ subject: "hi" })
 */
export async function parseMultipart(raw: Buffer, contentType: string, options: MultipartOptions = {}): Promise<Result<Payload>> {
  const parser = createParser(contentType);
  if (!("write" in parser)) return err(parser);
  const boundary = boundaryOf(contentType);
  if (boundary !== undefined && hasMorePartsThan(raw, boundary, MAX_MULTIPART_FIELDS)) {
    // Destroying reports "Unexpected end of form": nobody is listening yet, so swallow it.
    parser.on("error", () => undefined).destroy();
    return err(hookErrors.multipartTooManyFields({ max: MAX_MULTIPART_FIELDS }));
  }
  const { done, settled } = collectFields(parser);
  const chunk = Math.max(1, options.chunkBytes ?? MULTIPART_CHUNK_BYTES);
  const nextTurn = options.nextTurn ?? nextImmediate;
  for (let at = 0; at < raw.length && !settled(); at += chunk) {
    if (at > 0) await nextTurn();
    if (settled()) break;
    parser.write(raw.subarray(at, Math.min(raw.length, at + chunk)));
  }
  if (settled()) parser.destroy();
  else parser.end();
  return done;
}

/** Busboy's own messages are fixed texts (no input echoed); anything else gets a generic reason. */
function describeBusboyError(e: unknown): string {
  const message = e instanceof Error ? e.message : "";
  if (/unexpected end of form/i.test(message)) return "the form ends before its closing boundary";
  if (/malformed part header/i.test(message)) return "a part header is malformed";
  return "the parts could not be read";
}
