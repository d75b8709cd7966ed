/**
 * Delivery guarantees of the watcher against a real IMAP server: retries while the
 * receiver is down or busy, exactly-once delivery when it comes back, the batch in
 * flight re-sent unchanged after a stop, and what 4xx answers do to the checkpoint.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createMailWatcher, type MailWatcherOptions } from "../../src/mail/mail-watcher";
import { createCheckpointStore } from "../../src/mail/checkpoint-store";
import type { MailBatchPayload } from "../../src/mail/mail-payload";
import type { MailConfig } from "../../src/config/types";
import { isMailError } from "../../src/mail/mail-error";
import { startDovecot, type DovecotServer } from "./helpers/dovecot";
import { startHookReceiver, type HookReceiver } from "./helpers/hook-receiver";
import { mailConfigFor, PASSWORD_ENV } from "./helpers/mail-config";
import { createTestLogger } from "./helpers/test-logger";
import { plainMessage } from "./helpers/messages";

const TOKEN = "retry-test-token-0123456789abcdef";
let imap: DovecotServer;
let receiver: HookReceiver;
let stateDir: string;

beforeAll(async () => {
  imap = await startDovecot();
});
afterAll(async () => {
  await imap?.cleanup();
});
beforeEach(async () => {
  receiver = await startHookReceiver();
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-mail-state-"));
});
afterEach(async () => {
  await receiver.close();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

function watcher(mail: Partial<MailConfig> = {}, extra: Partial<MailWatcherOptions> = {}) {
  const log = createTestLogger();
  const w = createMailWatcher({
    mail: mailConfigFor(imap, { pollSeconds: 3600, ...mail }),
    token: TOKEN,
    hookUrl: receiver.url,
    stateDir,
    logger: log.logger,
    maxBodyBytes: 262144,
    env: { [PASSWORD_ENV]: imap.password },
    postBackoff: { initialMs: 20, maxMs: 100, jitter: 0 },
    reconnectBackoff: { initialMs: 50, maxMs: 200 },
    ...extra,
  });
  return { w, log };
}

const checkpoint = () => createCheckpointStore({ stateDir, mailbox: { host: "127.0.0.1", port: imap.port, user: imap.user, mailbox: "INBOX" } }).load()!;
const deliveredIds = () => receiver.accepted().flatMap((p) => (p.body as MailBatchPayload).messages.map((m) => m.id));

test("gateway down while mail arrives: run keeps retrying, then delivers each message exactly once", async () => {
  const { w, log } = watcher();
  await w.runOnce();
  const before = checkpoint().lastUid;
  await receiver.down();
  const a = plainMessage("while down 1", "one");
  const b = plainMessage("while down 2", "two");
  await imap.append(a.raw);
  await imap.append(b.raw);

  const controller = new AbortController();
  const running = w.run(controller.signal);
  await receiver.waitFor(() => log.lines.filter((l) => l.message === "gateway unreachable; retrying mail batch").length >= 3, "three failed attempts");
  expect(checkpoint().lastUid).toBe(before);
  expect(checkpoint().pending?.uids).toHaveLength(2);

  await receiver.up();
  await receiver.waitFor(() => receiver.accepted().length === 1, "the batch to arrive");
  await receiver.waitFor(() => checkpoint().pending === undefined, "the checkpoint to advance");
  expect(checkpoint().lastUid).toBe(before + 2);

  const c = plainMessage("after recovery", "three");
  await imap.append(c.raw);
  await receiver.waitFor(() => receiver.accepted().length === 2, "the next batch (through IDLE)");
  await receiver.waitFor(() => checkpoint().lastUid === before + 3 && checkpoint().pending === undefined, "the checkpoint to advance again");
  controller.abort();
  const summary = await running;

  expect(deliveredIds()).toEqual([a.id, b.id, c.id]);
  expect(receiver.posts.filter((p) => p.replayed)).toHaveLength(0);
  expect(summary).toMatchObject({ delivered: 3, batches: 2, rejected: 0, lastUid: before + 3 });
});

test("503 with Retry-After and 429 are retried until accepted", async () => {
  const { w, log } = watcher();
  await w.runOnce();
  await imap.append(plainMessage("busy", "x").raw);
  receiver.respondWith({ status: 503, retryAfter: "0", body: { ok: false, code: "overloaded", error: "busy" } });
  const done = w.runOnce();
  await receiver.waitFor(() => receiver.posts.length >= 2, "two 503 answers");
  receiver.respondWith({ status: 429, retryAfter: "0" });
  await receiver.waitFor(() => receiver.posts.filter((p) => p.status === 429).length >= 1, "a 429 answer");
  receiver.respondWith("ok");
  const summary = await done;
  expect(summary).toMatchObject({ delivered: 1, batches: 1 });
  expect(receiver.accepted()).toHaveLength(1);
  const keys = new Set(receiver.posts.map((p) => p.headers["idempotency-key"]));
  expect(keys.size).toBe(1);
  expect(log.lines.some((l) => l.message === "mail batch not accepted yet; retrying" && l.meta?.status === 503 && l.meta?.code === "overloaded")).toBe(true);
});

test("stopped after the gateway accepted but before the checkpoint moved: the same body and key are re-sent", async () => {
  const { w } = watcher();
  await w.runOnce();
  const m = plainMessage("in flight", "payload");
  await imap.append(m.raw);

  const hold = receiver.holdNext();
  const controller = new AbortController();
  const first = w.runOnce(controller.signal);
  await hold.received;
  controller.abort(); // the client gives up mid-request, like a kill
  await first;
  hold.release(); // the "gateway" still accepts it
  await receiver.waitFor(() => receiver.accepted().length === 1, "the held post to be accepted");
  expect(checkpoint().pending?.uids).toHaveLength(1);

  const { w: restarted } = watcher();
  const summary = await restarted.runOnce();
  expect(summary.delivered).toBe(1);
  expect(receiver.posts).toHaveLength(2);
  const [original, resent] = receiver.posts;
  expect(resent!.headers["idempotency-key"]).toBe(original!.headers["idempotency-key"]);
  expect(resent!.body).toEqual(original!.body);
  expect(resent!.replayed).toBe(true);
  expect(deliveredIds()).toEqual([m.id]);
  expect(checkpoint().pending).toBeUndefined();
});

test("a permanent 4xx (400) is logged and the batch skipped: the checkpoint moves past it", async () => {
  const { w, log } = watcher();
  await w.runOnce();
  const before = checkpoint().lastUid;
  await imap.append(plainMessage("rejected", "bad").raw);
  receiver.respondWith({ status: 400, body: { ok: false, code: "invalid_payload", error: "nope" } });
  const summary = await w.runOnce();
  expect(summary).toMatchObject({ delivered: 0, rejected: 1, batches: 0 });
  expect(checkpoint()).toMatchObject({ lastUid: before + 1 });
  expect(checkpoint().pending).toBeUndefined();
  const line = log.lines.find((l) => l.message === "mail batch rejected by the gateway; skipping it");
  expect(line?.level).toBe("error");
  expect(line?.meta).toMatchObject({ status: 400, code: "invalid_payload", uids: [before + 1] });

  receiver.respondWith("ok");
  expect((await w.runOnce()).delivered).toBe(0);
  expect(receiver.accepted()).toHaveLength(0);
});

test("401 (wrong token) is fatal and keeps the batch: nothing is lost once the token is fixed", async () => {
  const strict = await startHookReceiver({ token: "the-right-token-0123456789abcdef" });
  try {
    const { w } = watcher({}, { hookUrl: strict.url });
    await w.runOnce();
    const before = checkpoint().lastUid;
    const m = plainMessage("token test", "x");
    await imap.append(m.raw);
    const err = await w.runOnce().then(() => undefined, (e: unknown) => e);
    expect(isMailError(err, "hook_misconfigured")).toBe(true);
    expect((err as Error).message).toBe(`The hook at ${strict.url} refused the token (HTTP 401); check hooks.token and restart the gateway after changing it.`);
    expect(checkpoint().lastUid).toBe(before);
    expect(checkpoint().pending?.uids).toEqual([before + 1]);

    const { w: fixed } = watcher({}, { hookUrl: strict.url, token: "the-right-token-0123456789abcdef" });
    expect((await fixed.runOnce()).delivered).toBe(1);
    expect(strict.accepted().map((p) => (p.body as MailBatchPayload).messages[0]!.id)).toEqual([m.id]);
  } finally {
    await strict.close();
  }
});

test("404 (hook path not served) is fatal with a message naming hookUrl and the preset", async () => {
  const { w } = watcher({}, { hookUrl: receiver.url.replace("/hooks/mail", "/hooks/nothing-here") });
  await w.runOnce();
  await imap.append(plainMessage("404", "x").raw);
  const err = await w.runOnce().then(() => undefined, (e: unknown) => e);
  expect(isMailError(err, "hook_misconfigured")).toBe(true);
  expect((err as Error).message).toContain('(HTTP 404 not_found); check hooks.mail.hookUrl, hooks.enabled and that "mail" is in hooks.presets.');
});
