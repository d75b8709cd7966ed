/** The hook poster against a real local HTTP receiver: headers, retries, Retry-After, give-up rules. */
import { createHookPoster, parseRetryAfter } from "../../../src/mail/watcher/hook-poster";
import { buildBatch } from "../../../src/mail/watcher/batch";
import { isMailError } from "../../../src/mail/mail-error";
import { startHookReceiver, type HookReceiver } from "../helpers/hook-receiver";
import { createTestLogger } from "../helpers/test-logger";

const TOKEN = "poster-test-token-0123456789abcdef";
const batch = buildBatch([{ uid: 7, message: { id: "p1@x", from: "a@x", subject: "s", snippet: "hi" } }]);
let receiver: HookReceiver;
beforeEach(async () => {
  receiver = await startHookReceiver();
});
afterEach(() => receiver.close());

function poster(url = receiver.url) {
  const log = createTestLogger();
  return { p: createHookPoster({ hookUrl: url, token: TOKEN, logger: log.logger, backoff: { initialMs: 10, maxMs: 40, jitter: 0 } }), log };
}
const live = () => new AbortController().signal;

test("posts the batch as JSON with the bearer token and the idempotency key", async () => {
  const { p } = poster();
  await expect(p.post(batch, live())).resolves.toEqual({ kind: "delivered", status: 202, attempts: 1, replayed: false });
  const [post] = receiver.posts;
  expect(post!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  expect(post!.headers["idempotency-key"]).toBe(batch.idempotencyKey);
  expect(post!.headers["content-type"]).toBe("application/json");
  expect(post!.body).toEqual(batch.payload);
});

test("a replay of an already accepted batch counts as delivered and is logged as such", async () => {
  const { p, log } = poster();
  await p.post(batch, live());
  await expect(p.post(batch, live())).resolves.toEqual({ kind: "delivered", status: 202, attempts: 1, replayed: true });
  expect(log.lines.map((l) => l.message)).toEqual(["mail batch delivered", "mail batch was already accepted by the gateway (replayed)"]);
});

test.each([408, 425, 429, 500, 502, 503])("HTTP %i is retried", async (status) => {
  const { p } = poster();
  receiver.respondWith({ status, retryAfter: "0" });
  const result = p.post(batch, live());
  await receiver.waitFor(() => receiver.posts.length >= 2, "a retry");
  receiver.respondWith("ok");
  await expect(result).resolves.toMatchObject({ kind: "delivered", status: 202 });
});

test.each([400, 413, 415, 422])("HTTP %i is a permanent rejection (skip)", async (status) => {
  const { p } = poster();
  receiver.respondWith({ status, body: { ok: false, code: "some_code", error: "x" } });
  await expect(p.post(batch, live())).resolves.toEqual({ kind: "rejected", status, code: "some_code", attempts: 1 });
});

test.each([401, 403, 404, 405])("HTTP %i means the hook is misconfigured (fatal, no retry)", async (status) => {
  const { p } = poster();
  receiver.respondWith({ status });
  const err = await p.post(batch, live()).then(() => undefined, (e: unknown) => e);
  expect(isMailError(err, "hook_misconfigured")).toBe(true);
  expect(receiver.posts).toHaveLength(1);
});

test("an unreachable gateway is retried until it is back; the token never reaches the log", async () => {
  await receiver.down();
  const { p, log } = poster();
  const result = p.post(batch, live());
  await receiver.waitFor(() => log.lines.filter((l) => l.message === "gateway unreachable; retrying mail batch").length >= 2, "two failed attempts");
  expect(log.lines.find((l) => l.message === "gateway unreachable; retrying mail batch")?.meta).toMatchObject({ error: "ECONNREFUSED", attempt: 1, uids: [7] });
  await receiver.up();
  await expect(result).resolves.toMatchObject({ kind: "delivered" });
  expect(log.text()).not.toContain(TOKEN);
});

test("aborting while waiting to retry returns aborted", async () => {
  receiver.respondWith({ status: 503, retryAfter: "3600" });
  const { p } = poster();
  const c = new AbortController();
  const result = p.post(batch, c.signal);
  await receiver.waitFor(() => receiver.posts.length === 1, "the first attempt");
  c.abort();
  await expect(result).resolves.toEqual({ kind: "aborted", attempts: 1 });
});

test("Retry-After: delta seconds or an HTTP date", () => {
  const now = Date.parse("2024-06-04T10:00:00Z");
  expect(parseRetryAfter("5", now)).toBe(5000);
  expect(parseRetryAfter("Tue, 04 Jun 2024 10:00:30 GMT", now)).toBe(30_000);
  expect(parseRetryAfter("Tue, 04 Jun 2024 09:00:00 GMT", now)).toBe(0);
  expect(parseRetryAfter("soon", now)).toBeUndefined();
  expect(parseRetryAfter(null, now)).toBeUndefined();
});
