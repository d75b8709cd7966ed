/** Content-Type handling of hook bodies (SPEC §4.1, §6). */
import { hookErrors, type HookError } from "../../core/errors";

export type BodyFormat = "json" | "form";

export interface MediaType {
  /** Lower-cased `type/subtype`, "" when the header is absent. */
  essence: string;
  charset?: string;
}

/** Parses a Content-Type header into its essence and charset. */
export function parseMediaType(header: string | undefined): MediaType {
  if (!header) return { essence: "" };
  const [type, ...params] = header.split(";");
  const out: MediaType = { essence: type.trim().toLowerCase() };
  for (const p of params) {
    const eq = p.indexOf("=");
    if (eq === -1) continue;
    if (p.slice(0, eq).trim().toLowerCase() === "charset") {
      out.charset = p
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/g, "")
        .toLowerCase();
    }
  }
  return out;
}

/** True for `application/json` and structured-syntax `+json` types. */
export function isJsonType(essence: string): boolean {
  return essence === "application/json" || /^application\/[\w.-]+\+json$/.test(essence);
}

export const FORM_TYPE = "application/x-www-form-urlencoded";
export const MULTIPART_TYPE = "multipart/form-data";
export const TEXT_TYPE = "text/plain";

/** Charsets read as UTF-8 (ASCII is a subset). */
export function isUtf8Charset(charset: string | undefined): boolean {
  return charset === undefined || charset === "utf-8" || charset === "utf8" || charset === "us-ascii";
}

/** A media type safe to echo in an error message (token characters only). */
export function printableMediaType(essence: string): string | undefined {
  return /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(essence) ? essence : undefined;
}

/**
 * Compressed bodies are not accepted: a `Content-Encoding` other than `identity`
 * is a 415 (checked before reading, so the size limit applies to what is read).
 * Returns that error, or undefined when the body is not encoded.
 */
export function unsupportedEncoding(header: string | undefined): HookError | undefined {
  if (header === undefined) return undefined;
  const value = header.trim().toLowerCase();
  if (value === "" || value === "identity") return undefined;
  return /^[\w.+-]{1,32}$/.test(value) ? hookErrors.contentEncodingNotSupported({ encoding: value }) : hookErrors.unnamedContentEncodingNotSupported();
}
