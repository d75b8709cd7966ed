/**
 * fast-check generators for the response modes, fan-out, handshakes and body types
 * (SPEC §12): `Prefer` headers (valid, malformed, huge), forEach payloads (arrays
 * of many shapes and lengths around `hooks.maxFanOut`, non-arrays), multipart
 * bodies (fields, repeated names, file parts, malformed boundaries), text/plain
 * bodies, Slack `url_verification` POSTs (signed right, wrong, not at all) and
 * Meta verification GETs (right, wrong or missing parameters).
 *
 * The fuzz plugin's mappings these target: `fwd` (a `response`), `batch` (agent
 * forEach over `events`), `wbatch` (wake forEach), `slack`, `whatsapp`, `form`.
 */
import { createHmac } from "node:crypto";
import fc from "fast-check";

export const FUZZ_MAX_FAN_OUT = 5;
export const FUZZ_SLACK_SECRET = "fuzz-slack-signing-secret-0123456789";
export const FUZZ_META_TOKEN = "fuzz-meta-verify-token-42";
/** Bounds a waiting request: runs are instant in the fuzz host, this only caps a stuck queue. */
export const FUZZ_MAX_WAIT_SECONDS = 2;

/** The mapped hook paths of the generators below (for the path generators). */
export const RESPONSE_HOOK_PATHS = ["/fwd", "/batch", "/wbatch", "/slack", "/whatsapp", "/form"] as const;

interface Shaped {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

const printable = fc.string({ unit: "grapheme-ascii", maxLength: 30 });

/** `Prefer` header values: valid waits, other preferences, malformed and huge ones. */
export const preferHeader: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: FUZZ_MAX_WAIT_SECONDS + 2 }).map((n) => `wait=${n}`) },
  fc.constantFrom(
    "wait=1.5",
    "wait=-1",
    "wait=soon",
    "wait=",
    "wait",
    'wait="1"',
    "WAIT=1",
    "respond-async, wait=1",
    "wait=1; foo=bar",
    "wait=1, wait=600",
    "handling=lenient",
    ",,,",
    ";",
  ),
  fc.integer({ min: 0, max: 2 ** 53 }).map((n) => `wait=${n}`),
  fc.integer({ min: 1, max: 4000 }).map((n) => `wait=${"9".repeat(n)}`),
  fc.integer({ min: 1, max: 2000 }).map((n) => "x=1,".repeat(n) + "wait=1"),
  printable,
);

const forEachElement: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ id: fc.oneof(printable, fc.integer()), text: fc.oneof(printable, fc.integer(), fc.constant(null)) }, { requiredKeys: [] }),
  },
  printable,
  fc.integer(),
  fc.constant(null),
  fc.array(printable, { maxLength: 3 }),
  fc.constant({ message: "", sessionKey: "main" }),
);
/** The value at `events`: arrays around the fan-out limit, or not an array at all. */
const forEachValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.array(forEachElement, { minLength: 0, maxLength: FUZZ_MAX_FAN_OUT + 2 }) },
  fc.integer({ min: FUZZ_MAX_FAN_OUT - 1, max: FUZZ_MAX_FAN_OUT + 1 }).map((n) => Array.from({ length: n }, (_, i) => ({ id: `e${i}`, text: `t${i}` }))),
  fc.integer({ min: 100, max: 2000 }).map((n) => Array.from({ length: n }, () => 0)),
  fc.constantFrom(undefined, null, "events", 3, {}, { 0: "a", length: 1 }),
);
const forEachRequest: fc.Arbitrary<Shaped> = fc
  .tuple(fc.constantFrom("/batch", "/wbatch"), forEachValue, fc.option(printable, { nil: undefined }))
  .map(([path, events, sender]) => ({ path, headers: { "content-type": "application/json" }, body: Buffer.from(JSON.stringify({ sender, events })) }));

/** A multipart part: a field, or a file part (filename=). */
const part = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(fc.constantFrom("subject", "tag", "text", "id", "__proto__", ""), printable).map(([name, value]) => ({ name, value, file: false })),
  },
  fc.tuple(fc.constantFrom("invoice", "tag", "a b"), printable).map(([name, value]) => ({ name, value, file: true })),
);
const multipartRequest: fc.Arbitrary<Shaped> = fc
  .record({
    parts: fc.array(part, { maxLength: 6 }),
    boundary: fc.constantFrom("fuzzBoundary42", "----WebKitFormBoundary7MA4YWxkTrZu0gW", "x"),
    damage: fc.constantFrom("none", "none", "none", "other-boundary", "no-boundary-param", "unterminated", "no-crlf", "garbage"),
  })
  .map(({ parts, boundary, damage }) => {
    const chunks = parts.map(
      (p) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.file ? `; filename="${p.name}.bin"\r\nContent-Type: application/octet-stream` : ""}\r\n\r\n${p.value}\r\n`,
    );
    let text = chunks.join("") + (damage === "unterminated" ? "" : `--${boundary}--\r\n`);
    if (damage === "no-crlf") text = text.replace(/\r\n/g, "\n");
    if (damage === "garbage") text = "not a multipart body at all";
    const type =
      damage === "no-boundary-param" ? "multipart/form-data" : `multipart/form-data; boundary=${damage === "other-boundary" ? "elsewhere" : boundary}`;
    return { path: "/form", headers: { "content-type": type }, body: Buffer.from(text, "utf8") };
  });

const textRequest: fc.Arbitrary<Shaped> = fc
  .tuple(
    fc.oneof(printable, fc.string({ unit: "binary", maxLength: 60 }), fc.constantFrom("", "{{ payload }}", '{"json":true}')),
    fc.constantFrom("text/plain", "text/plain; charset=utf-8", "text/plain; charset=latin1", "TEXT/PLAIN"),
  )
  .map(([text, type]) => ({ path: "/form", headers: { "content-type": type }, body: Buffer.from(text, "utf8") }));

const slackSignature = (secret: string, ts: number, body: string) => `v0=${createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex")}`;
/** Slack url_verification (or event) POSTs: signed with the right secret, a wrong one, stale, or unsigned. */
const slackRequest: fc.Arbitrary<Shaped> = fc
  .record({
    type: fc.constantFrom("url_verification", "url_verification", "event_callback", "other"),
    challenge: fc.oneof(printable, fc.constant(undefined), fc.integer()),
    signing: fc.constantFrom("right", "right", "wrong-secret", "stale", "none", "tampered"),
  })
  .map(({ type, challenge, signing }) => {
    const body = JSON.stringify({ type, challenge, event: type === "event_callback" ? { text: "hi" } : undefined });
    const now = Math.floor(Date.now() / 1000);
    const ts = signing === "stale" ? now - 3600 : now;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (signing !== "none") {
      headers["x-slack-request-timestamp"] = String(ts);
      headers["x-slack-signature"] = slackSignature(
        signing === "wrong-secret" ? "another-secret" : FUZZ_SLACK_SECRET,
        ts,
        signing === "tampered" ? `${body} ` : body,
      );
    }
    return { path: "/slack", headers, body: Buffer.from(body) };
  });

/** Meta verification GET queries: right, wrong or missing token, mode and challenge. */
export const metaQuery: fc.Arbitrary<string> = fc
  .record(
    {
      "hub.mode": fc.constantFrom("subscribe", "subscribe", "unsubscribe", ""),
      "hub.verify_token": fc.constantFrom(FUZZ_META_TOKEN, FUZZ_META_TOKEN, "wrong-token", "", `${FUZZ_META_TOKEN}x`),
      "hub.challenge": fc.oneof(fc.integer({ min: 0 }).map(String), printable, fc.constant("9".repeat(1001))),
    },
    { requiredKeys: [] },
  )
  .map((q) => `?${new URLSearchParams(q as Record<string, string>).toString()}`);

/** Requests aimed at the §12 features; the caller adds credentials. */
export const responseModeRequest: fc.Arbitrary<{ method: string; path: string; headers: Record<string, string>; body: Buffer }> = fc.oneof(
  fc.tuple(preferHeader, fc.record({ message: printable }), fc.constantFrom("/agent", "/crm", "/fwd")).map(([prefer, body, path]) => ({
    method: "POST",
    path,
    headers: { "content-type": "application/json", prefer },
    body: Buffer.from(JSON.stringify(body)),
  })),
  fc
    .tuple(printable)
    .map(([id]) => ({ method: "POST", path: "/fwd", headers: { "content-type": "application/json" }, body: Buffer.from(JSON.stringify({ id })) })),
  forEachRequest.map((r) => ({ method: "POST", ...r })),
  multipartRequest.map((r) => ({ method: "POST", ...r })),
  textRequest.map((r) => ({ method: "POST", ...r })),
  slackRequest.map((r) => ({ method: "POST", ...r })),
  fc
    .tuple(fc.constantFrom("/whatsapp", "/whatsapp", "/form", "/slack", "/whatsapp/"), metaQuery)
    .map(([path, q]) => ({ method: "GET", path: `${path}${q}`, headers: {}, body: Buffer.alloc(0) })),
);
