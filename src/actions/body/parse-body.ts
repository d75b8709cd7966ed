/**
 * Turns a raw body into the payload object (SPEC §4.1):
 * - direct `/wake` and `/agent`: JSON whatever the Content-Type (so `curl -d` works);
 * - mapped hooks: JSON (also without a Content-Type, and form-typed bodies that
 *   start with `{`, which is what `curl -d '{…}'` sends) or
 *   `application/x-www-form-urlencoded`, where a `payload` field holding JSON is
 *   unwrapped as GitHub sends it; `text/plain`, which becomes `{ text }`; an empty
 *   body is `{}`; other types → 415 (`multipart/form-data` is parsed by
 *   parseRequestBody in parse-request-body.ts, which calls this for the rest).
 * Malformed JSON, JSON that is not an object, prototype-polluting keys
 * (`__proto__`, `constructor.prototype`) and nesting deeper than 64 levels
 * → 400 `invalid_json`. Nesting is checked first, on the text (one linear pass,
 * nothing parsed), so a body nested too deep is refused as such even when it is
 * also malformed. Form data becomes null-prototype objects.
 */
import sjson from "secure-json-parse";
import { err, hookErrors, ok, type Result } from "../../core/errors";
import { FORM_TYPE, isJsonType, isUtf8Charset, parseMediaType, printableMediaType, TEXT_TYPE } from "./media-type";

export type Payload = Record<string, unknown>;

/**
 * Deepest nesting accepted. Deeper JSON parses, but later steps that recurse
 * (JSON.stringify in templates, structuredClone) would overflow the stack.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text nests brackets deeper than `limit` (outside strings),
 * found by one linear pass over the characters before anything is parsed: a
 * 250 KiB body of `[[[[…` would otherwise cost a parse and a scan of 100 000
 * nested values, stalling the event loop for tens of milliseconds.
 */
function textNestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** False when the JSON text cannot name `__proto__` or `constructor` as a key (neither word, nor any `\u` escape, occurs). */
function mayHoldForbiddenKey(text: string): boolean {
  return text.includes("__proto__") || text.includes("constructor") || text.includes("\\u");
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function describeValueKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** Decodes UTF-8 (a BOM is dropped); undefined when the bytes are not UTF-8. */
function decode(raw: Buffer): string | undefined {
  try {
    return utf8.decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * Parses JSON text that must be an object. `what` names it in messages
 * ("The body", "The form field payload").
 */
export function parseJsonObject(text: string, what = "The body"): Result<Payload> {
  if (textNestsDeeper(text, MAX_JSON_DEPTH)) return err(hookErrors.jsonTooDeep({ what, maxDepth: MAX_JSON_DEPTH }));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return err(hookErrors.jsonMalformed({ what }));
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return err(hookErrors.jsonNotAnObject({ what, actual: describeValueKind(value) }));
  }
  // A forbidden key is spelled in the text either as it is or with \u escapes: without either, there is none to scan for.
  if (mayHoldForbiddenKey(text)) {
    try {
      sjson.scan(value, { protoAction: "error", constructorAction: "error" });
    } catch {
      return err(hookErrors.jsonForbiddenKey({ what }));
    }
  }
  return ok(value as Payload);
}

/** Form fields as a null-prototype object; a repeated field becomes an array. */
export function parseForm(text: string): Payload {
  const out: Payload = Object.create(null) as Payload;
  for (const [key, value] of new URLSearchParams(text)) {
    const prev = out[key];
    if (prev === undefined) out[key] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[key] = [prev, value];
  }
  return out;
}

function parseFormPayload(text: string): Result<Payload> {
  const form = parseForm(text);
  const wrapped = form.payload;
  if (typeof wrapped === "string" && /^\s*[{[]/.test(wrapped)) return parseJsonObject(wrapped, "The form field payload");
  return ok(form);
}

/** A text/plain body as a payload: `{ text }` (a null-prototype object, like form data). */
function textPayload(text: string): Payload {
  const out = Object.create(null) as Payload;
  out.text = text;
  return out;
}

export interface ParseBodyOptions {
  /** Mapped hooks accept form bodies and an empty body; direct hooks do not. */
  mapped: boolean;
  contentType?: string;
}

/**
 * @example parseBody(Buffer.from('{"text":"hi"}'), { mapped: false }) // ok({ text: "hi" })
 */
export function parseBody(raw: Buffer, options: ParseBodyOptions): Result<Payload> {
  const media = parseMediaType(options.contentType);
  const isForm = media.essence === FORM_TYPE;
  const isText = media.essence === TEXT_TYPE;
  if (options.mapped && media.essence !== "" && !isForm && !isText && !isJsonType(media.essence)) {
    const shown = printableMediaType(media.essence);
    return err(shown ? hookErrors.mediaTypeNotSupported({ mediaType: shown }) : hookErrors.unnamedMediaTypeNotSupported());
  }
  if (options.mapped && !isUtf8Charset(media.charset)) {
    return err(hookErrors.charsetNotUtf8());
  }
  const text = decode(raw);
  if (text === undefined) return err(hookErrors.bodyNotUtf8());
  if (options.mapped && isText) return ok(textPayload(text));
  if (text.trim() === "") {
    return options.mapped ? ok(Object.create(null) as Payload) : err(hookErrors.bodyEmpty());
  }
  if (options.mapped && isForm && !/^\s*[{[]/.test(text)) return parseFormPayload(text);
  return parseJsonObject(text);
}
