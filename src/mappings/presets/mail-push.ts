/**
 * The payload of the built-in `mail` preset (SPEC §6.4), as `gateway webhooks
 * mail run` (or any other sender) posts it:
 * `{ source?: "mail", messages: [{ id?, from, subject, snippet, body?, date? }] }`.
 */
import type { ErrorDetail, Result } from "../../core/errors";
import { err, hookErrors, ok } from "../../core/errors";

export interface MailPushMessage {
  id?: string;
  from: string;
  subject: string;
  snippet: string;
  body?: string;
  date?: string;
}

export interface MailPush {
  source?: string;
  messages: MailPushMessage[];
}

/** At most this many problems are listed in one 400 response. */
const MAX_DETAILS = 20;

function checkMessage(m: unknown, at: string, problems: ErrorDetail[]): MailPushMessage | undefined {
  if (typeof m !== "object" || m === null || Array.isArray(m)) {
    problems.push({ field: at, message: `${at} must be an object with from, subject and snippet` });
    return undefined;
  }
  const fields = m as Record<string, unknown>;
  const field = (name: string): unknown => (Object.hasOwn(fields, name) ? fields[name] : undefined);
  const before = problems.length;
  const from = field("from");
  if (typeof from !== "string" || from.trim() === "") problems.push({ field: `${at}.from`, message: `${at}.from must be a non-empty string` });
  for (const name of ["subject", "snippet"]) {
    if (typeof field(name) !== "string") problems.push({ field: `${at}.${name}`, message: `${at}.${name} must be a string` });
  }
  for (const name of ["id", "body", "date"]) {
    const v = field(name);
    if (v !== undefined && typeof v !== "string") problems.push({ field: `${at}.${name}`, message: `${at}.${name} must be a string when present` });
  }
  if (problems.length > before) return undefined;
  const out: MailPushMessage = { from: from as string, subject: field("subject") as string, snippet: field("snippet") as string };
  for (const name of ["id", "body", "date"] as const) {
    const v = field(name);
    if (typeof v === "string" && v !== "") out[name] = v;
  }
  return out;
}

/** Parses a mail push; an invalid one is a 400 `invalid_payload` naming each field. */
export function parseMailPush(payload: Record<string, unknown>): Result<MailPush> {
  const problems: ErrorDetail[] = [];
  const source = Object.hasOwn(payload, "source") ? payload.source : undefined;
  if (source !== undefined && typeof source !== "string") problems.push({ field: "source", message: "source must be a string when present" });
  const messages = Object.hasOwn(payload, "messages") ? payload.messages : undefined;
  const parsed: MailPushMessage[] = [];
  if (!Array.isArray(messages)) {
    problems.push({ field: "messages", message: "messages must be an array of mail messages" });
  } else if (messages.length === 0) {
    problems.push({ field: "messages", message: "messages must contain at least one message" });
  } else {
    messages.forEach((m, i) => {
      const msg = checkMessage(m, `messages[${i}]`, problems);
      if (msg) parsed.push(msg);
    });
  }
  if (problems.length > 0) {
    return err(hookErrors.mailPushInvalid({ details: problems.slice(0, MAX_DETAILS) }));
  }
  return ok({ ...(typeof source === "string" ? { source } : {}), messages: parsed });
}
