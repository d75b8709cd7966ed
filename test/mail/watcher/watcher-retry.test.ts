/**
 * Delivery guarantees of the watcher against a real IMAP server: retries while the
 * receiver is down or busy, exactly-once delivery when it comes back, the batch in
 * flight re-sent unchanged after a stop, and what 4xx answers do to the checkpoint.
 */
import type { MailWatcherOptions } from "../../../src/mail/watcher/mail-watcher";
import type { MailBatchPayload } from "../../../src/mail/watcher/mail-payload";
import type { MailConfig } from "../../../src/config/types";
import { isMailError } from "../../../src/mail/mail-error";
import { startHookReceiver } from "../helpers/hook-receiver";
import { useMailFixture } from "../helpers/mail-fixture";
import { testWatcher } from "../helpers/test-watcher";
import { plainMessage } from "../helpers/messages";

const TOKEN = "retry-test-token-0123456789abcdef";
const fx = useMailFixture("iw-mail-state-");

const watcher = (mail: Partial<MailConfig> = {}, extra: Partial<MailWatcherOptions> = {}) =>
  testWatcher(fx, { token: TOKEN, mail: { pollSeconds: 3600, ...mail }, extra: { postBackoff: { initialMs: 20, maxMs: 100, jitter: 0 }, ...extra } });

test("gateway down while mail arrives: run keeps retrying, then delivers each message exactly once", async () => {
  const { w, log } = watcher();
  await w.runOnce();
  const before = fx.checkpoint().lastUid;
  await fx.receiver.down();
  const a = plainMessage("while down 1", "one");
  const b = plainMessage("while down 2", "two");
  await fx.imap.append(a.raw);
  await fx.imap.append(b.raw);

  const controller = new AbortController();
  const running = w.run(controller.signal);
  await fx.receiver.waitFor(() => log.lines.filter((l) => l.message === "gateway unreachable; retrying mail batch").length >= 3, "three failed attempts");
  expect(fx.checkpoint().lastUid).toBe(before);
  expect(fx.checkpoint().pending?.uids).toHaveLength(2);

  await fx.receiver.up();
  await fx.receiver.waitFor(() => fx.receiver.accepted().length === 1, "the batch to arrive");
  await fx.receiver.waitFor(() => fx.checkpoint().pending === undefined, "the checkpoint to advance");
  expect(fx.checkpoint().lastUid).toBe(before + 2);

  const c = plainMessage("after recovery", "three");
  await fx.imap.append(c.raw);
  await fx.receiver.waitFor(() => fx.receiver.accepted().length === 2, "the next batch (through IDLE)");
  await fx.receiver.waitFor(() => fx.checkpoint().lastUid === before + 3 && fx.checkpoint().pending === undefined, "the checkpoint to advance again");
  controller.abort();
  const summary = await running;

  expect(fx.deliveredIds()).toEqual([a.id, b.id, c.id]);
  expect(fx.receiver.posts.filter((p) => p.replayed)).toHaveLength(0);
  expect(summary).toMatchObject({ delivered: 3, batches: 2, rejected: 0, lastUid: before + 3 });
});

test("runOnce with the gateway down gives up after onceMaxWaitMs (hook_unreachable), releases the lock, and the next run delivers the kept batch once", async () => {
  const { w } = watcher();
  await w.runOnce();
  const before = fx.checkpoint().lastUid;
  await fx.receiver.down();
  const m = plainMessage("while down for cron", "one");
  await fx.imap.append(m.raw);

  // A fake clock: every reading is 10 s later, so the 60 s budget is spent after 6 attempts without real waiting.
  let t = 0;
  const { w: once, log } = watcher({}, { onceMaxWaitMs: 60_000, now: () => (t += 10_000) });
  const err = await once.runOnce().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isMailError(err, "hook_unreachable")).toBe(true);
  expect((err as Error).message).toBe(
    `The hook at ${fx.receiver.url} did not accept the mail batch within 60 s (6 attempt(s), last: ECONNREFUSED); the batch is kept and sent again, with the same Idempotency-Key, by the next run.`,
  );
  expect(log.lines.filter((l) => l.message === "gateway unreachable; retrying mail batch")).toHaveLength(5);
  expect(log.lines.find((l) => l.message === "gave up on the mail batch for now; it is kept for the next run")?.meta).toMatchObject({
    attempts: 6,
    uids: [before + 1],
  });
  expect(fx.checkpoint().lastUid).toBe(before);
  expect(fx.checkpoint().pending?.uids).toEqual([before + 1]);
  const key = fx.checkpoint().pending?.idempotencyKey;

  await fx.receiver.up();
  const { w: next } = watcher(); // takes the watcher lock again: the failed run released it
  expect(await next.runOnce()).toMatchObject({ delivered: 1, batches: 1, lastUid: before + 1 });
  expect(fx.deliveredIds()).toEqual([m.id]);
  expect(fx.receiver.posts.map((p) => p.headers["idempotency-key"])).toEqual([key]);
  expect(fx.checkpoint().pending).toBeUndefined();
});

test("runOnce answered 503 past onceMaxWaitMs gives up naming the last status", async () => {
  const { w } = watcher();
  await w.runOnce();
  await fx.imap.append(plainMessage("busy for cron", "x").raw);
  fx.receiver.respondWith({ status: 503, retryAfter: "0", body: { ok: false, code: "overloaded", error: "busy" } });
  let t = 0;
  const { w: once } = watcher({}, { onceMaxWaitMs: 25_000, now: () => (t += 10_000) });
  const err = await once.runOnce().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isMailError(err, "hook_unreachable")).toBe(true);
  expect((err as Error).message).toContain("within 25 s (2 attempt(s), last: HTTP 503 overloaded)");
  expect(fx.receiver.posts).toHaveLength(2);
});

test("503 with Retry-After and 429 are retried until accepted", async () => {
  const { w, log } = watcher();
  await w.runOnce();
  await fx.imap.append(plainMessage("busy", "x").raw);
  fx.receiver.respondWith({ status: 503, retryAfter: "0", body: { ok: false, code: "overloaded", error: "busy" } });
  const done = w.runOnce();
  await fx.receiver.waitFor(() => fx.receiver.posts.length >= 2, "two 503 answers");
  fx.receiver.respondWith({ status: 429, retryAfter: "0" });
  await fx.receiver.waitFor(() => fx.receiver.posts.filter((p) => p.status === 429).length >= 1, "a 429 answer");
  fx.receiver.respondWith("ok");
  const summary = await done;
  expect(summary).toMatchObject({ delivered: 1, batches: 1 });
  expect(fx.receiver.accepted()).toHaveLength(1);
  const keys = new Set(fx.receiver.posts.map((p) => p.headers["idempotency-key"]));
  expect(keys.size).toBe(1);
  expect(log.lines.some((l) => l.message === "mail batch not accepted yet; retrying" && l.meta?.status === 503 && l.meta?.code === "overloaded")).toBe(true);
});

test("stopped after the gateway accepted but before the checkpoint moved: the same body and key are re-sent", async () => {
  const { w } = watcher();
  await w.runOnce();
  const m = plainMessage("in flight", "payload");
  await fx.imap.append(m.raw);

  const hold = fx.receiver.holdNext();
  const controller = new AbortController();
  const first = w.runOnce(controller.signal);
  await hold.received;
  controller.abort(); // the client gives up mid-request, like a kill
  await first;
  hold.release(); // the "gateway" still accepts it
  await fx.receiver.waitFor(() => fx.receiver.accepted().length === 1, "the held post to be accepted");
  expect(fx.checkpoint().pending?.uids).toHaveLength(1);

  const { w: restarted } = watcher();
  const summary = await restarted.runOnce();
  expect(summary.delivered).toBe(1);
  expect(fx.receiver.posts).toHaveLength(2);
  const [original, resent] = fx.receiver.posts;
  expect(resent!.headers["idempotency-key"]).toBe(original!.headers["idempotency-key"]);
  expect(resent!.body).toEqual(original!.body);
  expect(resent!.replayed).toBe(true);
  expect(fx.deliveredIds()).toEqual([m.id]);
  expect(fx.checkpoint().pending).toBeUndefined();
});

test("a permanent 4xx (400) is logged and the batch skipped: the checkpoint moves past it", async () => {
  const { w, log } = watcher();
  await w.runOnce();
  const before = fx.checkpoint().lastUid;
  await fx.imap.append(plainMessage("rejected", "bad").raw);
  fx.receiver.respondWith({ status: 400, body: { ok: false, code: "invalid_payload", error: "nope" } });
  const summary = await w.runOnce();
  expect(summary).toMatchObject({ delivered: 0, rejected: 1, batches: 0 });
  expect(fx.checkpoint()).toMatchObject({ lastUid: before + 1 });
  expect(fx.checkpoint().pending).toBeUndefined();
  const line = log.lines.find((l) => l.message === "mail batch rejected by the gateway; skipping it");
  expect(line?.level).toBe("error");
  expect(line?.meta).toMatchObject({ status: 400, code: "invalid_payload", uids: [before + 1] });

  fx.receiver.respondWith("ok");
  expect((await w.runOnce()).delivered).toBe(0);
  expect(fx.receiver.accepted()).toHaveLength(0);
});

test("401 (wrong token) is fatal and keeps the batch: nothing is lost once the token is fixed", async () => {
  const strict = await startHookReceiver({ token: "the-right-token-0123456789abcdef" });
  try {
    const { w } = watcher({}, { hookUrl: strict.url });
    await w.runOnce();
    const before = fx.checkpoint().lastUid;
    const m = plainMessage("token test", "x");
    await fx.imap.append(m.raw);
    const err = await w.runOnce().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isMailError(err, "hook_misconfigured")).toBe(true);
    expect((err as Error).message).toBe(`The hook at ${strict.url} refused the token (HTTP 401); check hooks.token and restart the gateway after changing it.`);
    expect(fx.checkpoint().lastUid).toBe(before);
    expect(fx.checkpoint().pending?.uids).toEqual([before + 1]);

    const { w: fixed } = watcher({}, { hookUrl: strict.url, token: "the-right-token-0123456789abcdef" });
    expect((await fixed.runOnce()).delivered).toBe(1);
    expect(strict.accepted().map((p) => (p.body as MailBatchPayload).messages[0]!.id)).toEqual([m.id]);
  } finally {
    await strict.close();
  }
});

test("404 (hook path not served) is fatal with a message naming hookUrl and the preset", async () => {
  const { w } = watcher({}, { hookUrl: fx.receiver.url.replace("/hooks/mail", "/hooks/nothing-here") });
  await w.runOnce();
  await fx.imap.append(plainMessage("404", "x").raw);
  const err = await w.runOnce().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isMailError(err, "hook_misconfigured")).toBe(true);
  expect((err as Error).message).toContain('(HTTP 404 not_found); check hooks.mail.hookUrl, hooks.enabled and that "mail" is in hooks.presets.');
});
