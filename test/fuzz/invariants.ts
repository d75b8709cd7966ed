/** What every response of the hooks surface must satisfy, whatever the request. */
import { ERROR_STATUS, type ErrorCode } from "../../src/core/errors";
import type { FuzzRequest } from "./arbitraries";
import type { FuzzResponse } from "./fuzz-client";
import { FUZZ_MAX_WAIT_SECONDS, FUZZ_META_TOKEN } from "./response-arbitraries";

/** 5xx codes a hook may legitimately answer (SPEC §4.2). */
export const ALLOWED_5XX: readonly ErrorCode[] = ["transform_failed", "overloaded"];

export class InvariantError extends Error {}

function fail(req: FuzzRequest, res: FuzzResponse, why: string): never {
  throw new InvariantError(
    `${why}\n  request: ${req.method} ${req.path} headers=${JSON.stringify(req.headers)} body(${req.body.length})=${JSON.stringify(req.body.subarray(0, 200).toString("utf8"))}\n  response: ${res.status} ${res.text.slice(0, 300)}`,
  );
}

/**
 * Checks one response; returns the request id when the plugin answered (undefined
 * for the host's own 404 outside the hooks path).
 */
export function checkResponse(req: FuzzRequest, res: FuzzResponse, secrets: string[]): string | undefined {
  const requestId = res.headers["x-request-id"];
  if (requestId === undefined) {
    // Not ours: the host's fallback (e.g. /hooksX, /HOOKS).
    if (res.status !== 404 || (req.method !== "HEAD" && res.text !== "host: no route"))
      fail(req, res, "a response without X-Request-Id that is not the host's 404");
    return undefined;
  }
  if (typeof requestId !== "string" || requestId === "") fail(req, res, "X-Request-Id is empty");
  for (const s of secrets) if (res.text.includes(s)) fail(req, res, "the response contains a secret or an internal path");
  if (/(\n|\\n)\s+at /.test(res.text) || res.text.includes("node_modules")) fail(req, res, "the response contains a stack trace");

  const head = req.method === "HEAD";
  const [pathname, search = ""] = req.path.split("?");
  if (res.status === 200 && req.method === "GET" && /^\/hooks\/whatsapp\/?$/.test(pathname!)) {
    // Meta's verification GET (SPEC §12): the challenge as sent, as text, and only for the right token.
    const q = new URLSearchParams(search);
    if (res.headers["content-type"] !== "text/plain; charset=utf-8") fail(req, res, `a Meta challenge with content-type ${res.headers["content-type"]}`);
    if (q.get("hub.mode") !== "subscribe" || q.get("hub.verify_token") !== FUZZ_META_TOKEN)
      fail(req, res, "a Meta challenge answered without hub.mode=subscribe and the right verify token");
    if (res.text !== q.get("hub.challenge")) fail(req, res, "a Meta challenge answer that is not the challenge sent");
    return requestId;
  }
  if (res.status === 204) {
    if (res.text !== "") fail(req, res, "204 with a body");
    return requestId;
  }
  if (!head && res.headers["content-type"] !== "application/json; charset=utf-8") fail(req, res, `content-type ${res.headers["content-type"]}`);
  let body: Record<string, unknown> = {};
  if (!head) {
    try {
      body = JSON.parse(res.text) as Record<string, unknown>;
    } catch {
      fail(req, res, "the body is not JSON");
    }
  }

  if (res.status >= 400) {
    if (head) return requestId;
    const code = body.code as ErrorCode;
    if (body.ok !== false) fail(req, res, "an error without ok:false");
    if (typeof code !== "string" || !(code in ERROR_STATUS)) fail(req, res, `unknown error code ${String(code)}`);
    if (ERROR_STATUS[code] !== res.status) fail(req, res, `code ${code} with status ${res.status}`);
    if (typeof body.error !== "string" || body.error.trim() === "") fail(req, res, "an error without a message");
    if (res.status >= 500 && !ALLOWED_5XX.includes(code)) fail(req, res, `a 5xx other than ${ALLOWED_5XX.join("/")}`);
    if (body.details !== undefined) {
      const ok =
        Array.isArray(body.details) && body.details.every((d) => d && typeof d.field === "string" && typeof d.message === "string" && d.message !== "");
      if (!ok) fail(req, res, "malformed details");
    }
    const allowed = new Set(["ok", "code", "error", "details"]);
    if (Object.keys(body).some((k) => !allowed.has(k))) fail(req, res, "extra fields in an error body");
    return requestId;
  }

  if (![200, 202].includes(res.status)) fail(req, res, `unexpected status ${res.status}`);
  if (head) return requestId;
  checkPreferenceApplied(req, res);
  if (pathname === "/hooks/fwd") {
    // The fwd mapping's own response (SPEC §12): exactly its rendered body, with its status.
    if (res.status !== 200 || Object.keys(body).join() !== "received" || typeof body.received !== "string")
      fail(req, res, "fwd did not answer its mapping's response");
    return requestId;
  }
  if (Object.keys(body).join() === "challenge") {
    // Slack url_verification: only on the slack path, echoing the challenge of the (signed) request.
    let sent: { type?: unknown; challenge?: unknown } = {};
    try {
      sent = JSON.parse(req.body.toString("utf8")) as typeof sent;
    } catch {
      fail(req, res, "a Slack challenge answer to a body that is not JSON");
    }
    if (pathname !== "/hooks/slack" || res.status !== 200 || sent.type !== "url_verification" || sent.challenge !== body.challenge)
      fail(req, res, "a challenge answer that is not Slack's url_verification");
    return requestId;
  }
  if (body.ok !== true) fail(req, res, "a 2xx without ok:true");
  if (Array.isArray(body.runs) && req.method === "POST") {
    // A fan-out (the run listing `GET {path}/runs` has `runs` too): every run listed under the hook namespace; 200 only when no run started.
    const runs = body.runs as Array<Record<string, unknown>>;
    if (typeof body.events !== "number") fail(req, res, "a fan-out answer without events");
    if (runs.some((r) => typeof r.runId !== "string" || typeof r.index !== "number" || typeof r.sessionKey !== "string" || !r.sessionKey.startsWith("hook:")))
      fail(req, res, "a fan-out run without index/runId/hook sessionKey");
    if ((res.status === 202) !== runs.length > 0) fail(req, res, `a fan-out answered ${res.status} with ${runs.length} runs`);
    return requestId;
  }
  if (res.status === 202) {
    if (typeof body.runId !== "string" || typeof body.sessionKey !== "string") fail(req, res, "a 202 without runId/sessionKey");
    if (!body.sessionKey.startsWith("hook:")) fail(req, res, "a run outside the hook session namespace");
  } else if (typeof body.status === "string" && typeof body.runId === "string") {
    // A waited run (Prefer: wait): only after waiting, with the run's outcome.
    if (res.headers["preference-applied"] === undefined) fail(req, res, "a run outcome answered without Preference-Applied");
    if (!["succeeded", "failed", "timed_out"].includes(body.status)) fail(req, res, `a waited run answered with status ${body.status}`);
    if (typeof body.sessionKey !== "string" || !body.sessionKey.startsWith("hook:")) fail(req, res, "a waited run outside the hook session namespace");
  } else if (
    body.run === undefined &&
    !Array.isArray(body.runs) &&
    !Array.isArray(body.deliveries) &&
    body.delivery === undefined &&
    !["now", "next-heartbeat"].includes(body.mode as string)
  ) {
    fail(req, res, "a 200 that is neither a wake, a run status, a waited run, nor a run or delivery listing");
  }
  return requestId;
}

/** `Preference-Applied` only when the request asked to wait, naming a whole number of seconds within the cap. */
function checkPreferenceApplied(req: FuzzRequest, res: FuzzResponse): void {
  const applied = res.headers["preference-applied"];
  if (applied === undefined) return;
  const m = typeof applied === "string" ? /^wait=(\d+)$/.exec(applied) : null;
  if (!m) fail(req, res, `Preference-Applied ${String(applied)}`);
  const n = Number(m[1]);
  if (n < 1 || n > FUZZ_MAX_WAIT_SECONDS) fail(req, res, `Preference-Applied wait=${n} outside 1..${FUZZ_MAX_WAIT_SECONDS}`);
  if (!/wait/i.test(req.headers.prefer ?? "")) fail(req, res, "Preference-Applied on a request without a wait preference");
}
