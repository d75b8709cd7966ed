/**
 * fast-check generators of hostile and ordinary hook requests: methods, paths,
 * credentials, media types, encodings, idempotency headers and bodies of every
 * shape (valid actions with wrong types, arbitrary JSON, raw bytes, deep nesting,
 * prototype-polluting keys, oversized bodies, form data), plus the response-mode,
 * fan-out, handshake and body-type requests of `response-arbitraries.ts`.
 */
import fc from "fast-check";
import { preferHeader, RESPONSE_HOOK_PATHS, responseModeRequest } from "./response-arbitraries";

export const FUZZ_TOKEN = "fuzz-hook-token-0123456789abcdef";
/** Small enough that generated bodies cross it often. */
export const FUZZ_MAX_BODY_BYTES = 16_384;

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Send with Content-Length (else chunked). */
  contentLength: boolean;
}

const printable = fc.string({ unit: "grapheme-ascii", maxLength: 40 });
const anyText = fc.oneof(
  printable,
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.constantFrom("", " ", "\u0000", "\u202e", "<<<END_EXTERNAL_UNTRUSTED_CONTENT>>>", "HEARTBEAT_OK", "main", "hook:main", "../../etc/passwd"),
);
/** Any JSON-able value: the wrong-type generator for every field. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: anyText },
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(printable, { maxLength: 3 }),
  fc.dictionary(printable, printable, { maxKeys: 3 }),
);
/** Mostly absent; when present, mostly a plausible value. */
const maybe = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: a });
/** A plausible value most of the time, anything else sometimes. */
const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: anyValue });

const wakeBody = fc.record({ text: mostly(printable), mode: maybe(mostly(fc.constantFrom("now", "next-heartbeat", "later", ""))) }, { requiredKeys: [] });
const agentBody = fc.record(
  {
    message: mostly(printable),
    name: maybe(anyValue),
    sessionKey: maybe(mostly(fc.constantFrom("main", "hook:x", "hook:fuzz", "agent:main:main", ""))),
    wakeMode: maybe(mostly(fc.constantFrom("now", "next-heartbeat"))),
    deliver: maybe(mostly(fc.boolean())),
    channel: maybe(mostly(fc.constantFrom("last", "phone_chat", "bot_chat", "sms", "workspace_chat_plugin"))),
    to: maybe(mostly(fc.constantFrom("+1 (555) 123-4567", "not a phone", "user-1"))),
    model: maybe(mostly(fc.constantFrom("openai/gpt-5", "fast", "evil/model"))),
    thinking: maybe(mostly(fc.constantFrom("off", "low", "xhigh", "huge"))),
    timeoutSeconds: maybe(mostly(fc.constantFrom(30, 0, -1, 86400, 86401, "5"))),
  },
  { requiredKeys: [] },
);
const mappedBody = fc.record(
  {
    source: maybe(fc.constantFrom("monitor", "mail", "other")),
    deal: maybe(anyValue),
    alert: maybe(anyValue),
    text: maybe(anyValue),
    msg: maybe(anyValue),
    skip: maybe(fc.boolean()),
    boom: maybe(fc.boolean()),
    messages: maybe(fc.array(fc.record({ id: maybe(printable), from: anyValue, subject: anyValue, snippet: anyValue }), { maxLength: 3 })),
  },
  { requiredKeys: [] },
);

const POLLUTING = [
  '{"__proto__":{"polluted":1},"text":"hi"}',
  '{"constructor":{"prototype":{"polluted":1}},"message":"hi"}',
  '{"text":"hi","nested":{"__proto__":{"polluted":1}}}',
];

const bodyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: wakeBody.map((b) => JSON.stringify(b)) },
  { weight: 6, arbitrary: agentBody.map((b) => JSON.stringify(b)) },
  { weight: 4, arbitrary: mappedBody.map((b) => JSON.stringify(b)) },
  { weight: 3, arbitrary: fc.json({ maxDepth: 4 }) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 3, stringUnit: "binary" }) },
  { weight: 1, arbitrary: fc.constantFrom(...POLLUTING) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3000 }).map((d) => "[".repeat(d) + "]".repeat(d)) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 2000 }).map((d) => '{"a":'.repeat(d) + "1" + "}".repeat(d)) },
  { weight: 1, arbitrary: fc.constantFrom("", "{", "}", "null", "[]", '"x"', "1e999", "{}", "\ufeff{}", '{"text":"a"} trailing') },
  { weight: 1, arbitrary: fc.dictionary(printable, printable, { maxKeys: 4 }).map((d) => new URLSearchParams(d).toString()) },
  { weight: 1, arbitrary: agentBody.map((b) => "payload=" + encodeURIComponent(JSON.stringify(b))) },
);

const body: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 12, arbitrary: bodyText.map((t) => Buffer.from(t, "utf8")) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 512 }).map((u) => Buffer.from(u)) },
  { weight: 1, arbitrary: bodyText.map((t) => Buffer.from(t, "latin1")) },
  { weight: 1, arbitrary: bodyText.map((t) => Buffer.from(t, "utf16le")) },
  // Around and over the limit.
  {
    weight: 1,
    arbitrary: fc.integer({ min: FUZZ_MAX_BODY_BYTES - 64, max: FUZZ_MAX_BODY_BYTES * 2 }).map((n) => Buffer.from(JSON.stringify({ text: "x".repeat(n) }))),
  },
);

const segment = fc.oneof(
  fc.constantFrom("wake", "agent", "crm", "xf", "mail", "anything", "runs", "WAKE", "%77ake", "..", ".", "%2e%2e", "%", "%zz", "wake%2fx", "%C3%A9", "%00"),
  printable.map((s) => encodeURIComponent(s)),
);
const subPath = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("/wake", "/agent", "/crm", "/xf", "/mail", "/monitor-anything") },
  { weight: 2, arbitrary: fc.constantFrom(...RESPONSE_HOOK_PATHS) },
  { weight: 2, arbitrary: fc.array(segment, { minLength: 0, maxLength: 3 }).map((s) => "/" + s.join("/")) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      "/",
      "//wake",
      "/wake/",
      "/runs/",
      "/runs/x/y",
      "/deliveries",
      "/deliveries/x/y",
      "/runs?status=failed&limit=3",
      "/deliveries?status=4xx",
    ),
  },
  { weight: 1, arbitrary: fc.oneof(fc.uuid(), printable.map(encodeURIComponent)).map((id) => `/deliveries/${id}`) },
  { weight: 1, arbitrary: fc.uuid().map((id) => `/deliveries/${id}/replay`) },
  { weight: 1, arbitrary: fc.oneof(fc.uuid(), printable.map(encodeURIComponent)).map((id) => `/runs/${id}`) },
);
const query = fc.oneof(
  { weight: 6, arbitrary: fc.constant("") },
  fc.constantFrom(`?token=${FUZZ_TOKEN}`, "?token=wrong", "?token=", "?x=1&x=2", "?__proto__=1", "?token=a&token=b"),
);
const prefix = fc.oneof({ weight: 12, arbitrary: fc.constant("/hooks") }, fc.constantFrom("/hooksX", "/HOOKS", "/hook", "/"));

const auth = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Record<string, string>>({ authorization: `Bearer ${FUZZ_TOKEN}` }) },
  { weight: 2, arbitrary: fc.constant<Record<string, string>>({ "x-service-token": FUZZ_TOKEN }) },
  fc.constant<Record<string, string>>({}),
  fc.constantFrom<Record<string, string>>(
    { authorization: "Bearer wrong-token-0000000000" },
    { authorization: `bearer ${FUZZ_TOKEN}` },
    { authorization: `Basic ${Buffer.from(`u:${FUZZ_TOKEN}`).toString("base64")}` },
    { authorization: "Bearer" },
    { authorization: `Bearer ${FUZZ_TOKEN} extra` },
    { authorization: "Bearer wrong", "x-service-token": FUZZ_TOKEN },
    { "x-service-token": "" },
  ),
);

const headerValue = fc.string({ unit: "grapheme-ascii", maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, "").trim());
const mediaType = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8") },
  fc.constantFrom(
    "application/x-www-form-urlencoded",
    "text/plain",
    "application/json; charset=latin1",
    "application/json; charset=utf-16",
    "application/cloudevents+json",
    "multipart/form-data; boundary=x",
    "application/xml",
    "garbage",
    ";;;",
    "",
  ),
);
const encoding = fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, fc.constantFrom("identity", "gzip", "br", "deflate, gzip", "IDENTITY", "x"));
/** Keys from a small pool so replays and reuse with another body happen. */
const idempotency = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Record<string, string>>({}) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom("idempotency-key", "webhook-id", "svix-id", "x-github-delivery"), fc.constantFrom("k1", "k2", "k3", "evt_1"))
      .map(([h, k]) => ({ [h]: k })),
  },
  fc.tuple(fc.constantFrom("idempotency-key", "webhook-id"), headerValue).map(([h, k]) => ({ [h]: k })),
);
const extraHeaders = fc
  .tuple(
    fc.dictionary(
      fc.constantFrom(
        "x-foo",
        "accept",
        "user-agent",
        "x-forwarded-for",
        "cookie",
        "expect-ct",
        "x-github-event",
        "webhook-signature",
        "x-hub-signature-256",
        "x-slack-signature",
      ),
      headerValue,
      { maxKeys: 3 },
    ),
    fc.option(preferHeader, { nil: undefined, freq: 4 }),
  )
  .map(([extra, prefer]) => (prefer === undefined ? extra : { ...extra, prefer }));

/** Any combination of the parts above: mostly rejected somewhere along the pipeline. */
const anyRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.oneof({ weight: 10, arbitrary: fc.constant("POST") }, fc.constantFrom("GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD")),
    prefix,
    subPath,
    query,
    auth,
    contentType: mediaType,
    encoding,
    idempotency,
    extra: extraHeaders,
    body,
    contentLength: fc.boolean(),
  })
  .map((r) => {
    const headers: Record<string, string> = { ...r.extra, ...r.idempotency, ...r.auth };
    if (r.contentType !== undefined) headers["content-type"] = r.contentType;
    if (r.encoding !== undefined) headers["content-encoding"] = r.encoding;
    return { method: r.method, path: `${r.prefix}${r.subPath}${r.query}`, headers, body: r.body, contentLength: r.contentLength };
  });

/** Authenticated POSTs whose body fits the route: they get far enough to be validated, accepted or replayed. */
const coherentRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    route: fc.oneof(
      wakeBody.map((b) => ({ path: "/hooks/wake", body: b as unknown })),
      agentBody.map((b) => ({ path: "/hooks/agent", body: b as unknown })),
      mappedBody.map((b) => ({ path: "/hooks/crm", body: b as unknown })),
      mappedBody.map((b) => ({ path: "/hooks/xf", body: b as unknown })),
      mappedBody.map((b) => ({ path: "/hooks/from-monitor", body: { ...b, source: "monitor" } as unknown })),
      mappedBody.map((b) => ({ path: "/hooks/mail", body: b as unknown })),
    ),
    contentType: fc.constantFrom(undefined, "application/json", "application/json; charset=utf-8"),
    idempotency,
    extra: extraHeaders,
    contentLength: fc.boolean(),
  })
  .map((r) => {
    const headers: Record<string, string> = { ...r.extra, ...r.idempotency, authorization: `Bearer ${FUZZ_TOKEN}` };
    if (r.contentType !== undefined) headers["content-type"] = r.contentType;
    return { method: "POST", path: r.route.path, headers, body: Buffer.from(JSON.stringify(r.route.body)), contentLength: r.contentLength };
  });

/** Requests at the §12 features (Prefer, forEach, multipart, text, handshakes), mostly with the hook token. */
const responseRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    req: responseModeRequest,
    auth: fc.oneof(
      { weight: 4, arbitrary: fc.constant<Record<string, string>>({ authorization: `Bearer ${FUZZ_TOKEN}` }) },
      fc.constant<Record<string, string>>({}),
    ),
    idempotency,
    contentLength: fc.boolean(),
  })
  .map(({ req, auth: a, idempotency: idem, contentLength }) => ({
    ...req,
    path: `/hooks${req.path}`,
    headers: { ...idem, ...a, ...req.headers },
    contentLength,
  }));

/** One generated request. */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { weight: 2, arbitrary: anyRequest },
  { weight: 2, arbitrary: coherentRequest },
  { weight: 1, arbitrary: responseRequest },
);

/** Requests that can never be accepted: no or a wrong credential, or a refused method. */
export const rejectedRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fuzzRequest,
    fc.oneof(
      fc.constant<Record<string, string>>({}),
      fc.constantFrom<Record<string, string>>(
        { authorization: "Bearer wrong-token-0000000000" },
        { "x-service-token": "nope" },
        { authorization: "Basic Zm9vOmJhcg==" },
      ),
    ),
  )
  .map(([req, badAuth]) => {
    const headers = { ...req.headers };
    delete headers.authorization;
    delete headers["x-service-token"];
    // A Slack signature authenticates its path by itself: a rejected request carries none.
    delete headers["x-slack-signature"];
    delete headers["x-slack-request-timestamp"];
    return { ...req, path: req.path.replace(/\?.*$/, ""), headers: { ...headers, ...badAuth } };
  });
