/**
 * `multipart/form-data` bodies of mapped hooks (SPEC §12): busboy reads the parts
 * of the body the pipeline has already read within `hooks.maxBodyBytes` (a body
 * over the limit was refused with 413 while it streamed in). Fields become payload
 * keys, a repeated name an array, in order; any file part → 415 naming the part.
 * Busboy parses in one linear pass; field count and size are bounded. Like form
 * bodies, the payload is a null-prototype object.
 */
import busboy from "busboy";
import { err, hookErrors, ok, type HookError, type Result } from "../../core/errors";
import type { Payload } from "./parse-body";

/** Most fields one multipart body may carry. */
export const MAX_MULTIPART_FIELDS = 1000;
/** Largest single field value, in bytes (the whole body is bounded by hooks.maxBodyBytes as well). */
export const MAX_MULTIPART_FIELD_BYTES = 1024 * 1024;

/** A part name safe to echo in an error message. */
function printablePart(name: string | undefined): string | undefined {
  return name !== undefined && /^[\w.\-[\]]{1,64}$/.test(name) ? name : undefined;
}

/**
 * @example await parseMultipart(raw, 'multipart/form-data; boundary=x') // ok({ subject: "hi" })
 */
export function parseMultipart(raw: Buffer, contentType: string): Promise<Result<Payload>> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (r: Result<Payload>): void => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    const fail = (e: HookError): void => settle(err(e));
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { "content-type": contentType },
        limits: { fields: MAX_MULTIPART_FIELDS, fieldSize: MAX_MULTIPART_FIELD_BYTES, fieldNameSize: 200 },
        defParamCharset: "utf8",
      });
    } catch (e) {
      fail(hookErrors.multipartMalformed({ reason: e instanceof Error && /boundary/i.test(e.message) ? "the Content-Type has no boundary" : "the Content-Type is not a multipart type busboy reads" }));
      return;
    }
    const out: Payload = Object.create(null) as Payload;
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) {
        const part = printablePart(name);
        fail(hookErrors.multipartFieldTooLarge({ part: part ?? "(unnamed)", max: MAX_MULTIPART_FIELD_BYTES }));
        return;
      }
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
    parser.end(raw);
  });
}

/** Busboy's own messages are fixed texts (no input echoed); anything else gets a generic reason. */
function describeBusboyError(e: unknown): string {
  const message = e instanceof Error ? e.message : "";
  if (/unexpected end of form/i.test(message)) return "the form ends before its closing boundary";
  if (/malformed part header/i.test(message)) return "a part header is malformed";
  return "the parts could not be read";
}
