/** The hook poster against a real local HTTP receiver: headers, retries, Retry-After, give-up rules. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHookPoster, parseRetryAfter, type PostOutcome } from "../../../src/mail/watcher/hook-poster";
import { buildBatch } from "../../../src/mail/watcher/batch";
import { isMailError } from "../../../src/mail/mail-error";
import { startHookReceiver, type HookReceiver } from "../helpers/hook-receiver";
import { createTestLogger } from "../helpers/test-logger";
import { startEndlessAnswer, type EndlessAnswer } from "../helpers/endless-answer";
import { until } from "../../helpers/until";

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
  const err = await p.post(batch, live()).then(
    () => undefined,
    (e: unknown) => e,
  );
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

describe("an answer whose body never ends", () => {
  let endless: EndlessAnswer | undefined;
  afterEach(async () => {
    await endless?.close();
    endless = undefined;
  });

  /** The post's outcome, or a failure when it took longer than a few seconds (the attempt timeout is far longer). */
  async function postTo(url: string): Promise<PostOutcome | Error> {
    const log = createTestLogger();
    const p = createHookPoster({ hookUrl: url, token: TOKEN, logger: log.logger, backoff: { initialMs: 10, maxMs: 40, jitter: 0 }, requestTimeoutMs: 60_000 });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Error>((resolve) => (timer = setTimeout(() => resolve(new Error("the post was still reading the answer after 5 s")), 5000)));
    try {
      return await Promise.race([p.post(batch, live()).catch((e: Error) => e), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  test("a 202 with an endless body is delivered at once, after reading a bounded head of it", async () => {
    endless = await startEndlessAnswer(202);
    await expect(postTo(endless.url)).resolves.toEqual({ kind: "delivered", status: 202, attempts: 1, replayed: false });
    await until(() => endless!.closedByClient === 1, "the watcher to hang up");
    // What the server could push before the hang-up: the watcher's bounded read plus socket buffers, not the 64 MiB on offer.
    expect(endless.bytesSent).toBeLessThan(32 * 1024 * 1024);
  });

  test("a 400 with an endless body is rejected with its status at once (the cut answer has no code)", async () => {
    endless = await startEndlessAnswer(400);
    await expect(postTo(endless.url)).resolves.toEqual({ kind: "rejected", status: 400, code: undefined, attempts: 1 });
    await until(() => endless!.closedByClient === 1, "the watcher to hang up");
    expect(endless.requests).toBe(1);
  });

  test("a 401 with an endless body stops the watcher as misconfigured at once", async () => {
    endless = await startEndlessAnswer(401);
    const err = await postTo(endless.url);
    expect(isMailError(err, "hook_misconfigured")).toBe(true);
  });
});

describe("a hook URL that answers with a redirect", () => {
  let server: http.Server | undefined;
  const requests: string[] = [];
  afterEach(async () => {
    await new Promise((r) => server?.close(r));
    server = undefined;
    requests.length = 0;
  });
  /** POST /hooks/mail → `status` with Location /elsewhere; anything at /elsewhere → 200 (a login page, another hook). */
  async function redirecting(status: number): Promise<string> {
    server = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      req.resume();
      if (req.url === "/hooks/mail") res.writeHead(status, { location: "/elsewhere" }).end();
      else res.writeHead(200, { "content-type": "text/html" }).end("<html>sign in</html>");
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/mail`;
  }

  test.each([301, 302, 303, 307, 308])(
    "HTTP %i stops the watcher as misconfigured instead of counting what the redirect target answered as delivered",
    async (status) => {
      const url = await redirecting(status);
      const { p } = poster(url);
      const err = await p.post(batch, live()).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isMailError(err, "hook_misconfigured")).toBe(true);
      expect((err as Error).message).toBe(
        `The hook at ${url} answered with a redirect (HTTP ${status} to /elsewhere); set hooks.mail.hookUrl to the URL that accepts the post (the watcher does not follow redirects).`,
      );
      expect(requests).toEqual(["POST /hooks/mail"]);
    },
  );
});
