/**
 * The text/message of a mapping that has no template (and whose transform, if
 * any, did not set one): the payload's own `text` (wake) or `message` (agent)
 * string when it has a non-empty one, else a short header naming the hook
 * followed by the payload as indented JSON, cut at DEFAULT_CONTENT_MAX_CHARS.
 * The indentation stops once past the cut (indent-json.ts): JSON.stringify's own
 * indentation of a 240 KB payload nested 62 deep is a 15.7 MB string (60 ms).
 * The payload's compact JSON comes from the request's render memo: every element of a
 * `forEach` gets this same payload, and it is stringified once per request, not per element.
 */
import type { ActionKind } from "../config/types";
import type { RequestContext } from "./request-context";
import { indentJson } from "./templates/indent-json";
import { compactJson } from "./templates/stringify-value";

export const DEFAULT_CONTENT_MAX_CHARS = 16000;

export function renderDefaultContent(kind: ActionKind, ctx: Pick<RequestContext, "path" | "payload" | "memo">, mappingId: string): string {
  const field = kind === "wake" ? "text" : "message";
  const own = Object.hasOwn(ctx.payload, field) ? ctx.payload[field] : undefined;
  if (typeof own === "string" && own.trim() !== "") return own;
  const json = indentJson(compactJson(ctx.payload, ctx.memo) ?? "{}", 2, DEFAULT_CONTENT_MAX_CHARS);
  const body =
    json.length > DEFAULT_CONTENT_MAX_CHARS ? `${json.slice(0, DEFAULT_CONTENT_MAX_CHARS)}\n… (payload cut at ${DEFAULT_CONTENT_MAX_CHARS} characters)` : json;
  return `Webhook "${ctx.path}" (mapping ${mappingId}) received this payload:\n${body}`;
}
