/**
 * The body of a request as a payload (SPEC §4.1, §12): `multipart/form-data` on a
 * mapped hook goes through busboy (parse-multipart.ts), everything else through
 * `parseBody`. Direct `/wake` and `/agent` keep JSON only, whatever the type.
 */
import { err, hookErrors, type Result } from "../../core/errors";
import { isUtf8Charset, MULTIPART_TYPE, parseMediaType } from "./media-type";
import { parseBody, type ParseBodyOptions, type Payload } from "./parse-body";
import { parseMultipart } from "./parse-multipart";

/** @example await parseRequestBody(raw, { mapped: true, contentType: "text/plain" }) // ok({ text: "…" }) */
export async function parseRequestBody(raw: Buffer, options: ParseBodyOptions): Promise<Result<Payload>> {
  if (options.mapped && options.contentType !== undefined) {
    const media = parseMediaType(options.contentType);
    if (media.essence === MULTIPART_TYPE) {
      if (!isUtf8Charset(media.charset)) return err(hookErrors.charsetNotUtf8());
      return parseMultipart(raw, options.contentType);
    }
  }
  return parseBody(raw, options);
}
