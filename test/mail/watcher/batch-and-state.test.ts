/** Batching, idempotency keys, backoff, the checkpoint file, the watcher lock and the default hook URL. */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildBatch, idempotencyKeyFor, splitIntoBatches, type UidMessage } from "../../../src/mail/watcher/batch";
import { backoffDelay, sleep } from "../../../src/mail/watcher/backoff";
import { createCheckpointStore, mailboxKey } from "../../../src/mail/watcher/checkpoint-store";
import { acquireWatcherLock } from "../../../src/mail/watcher/watcher-lock";
import { isMailError } from "../../../src/mail/mail-error";

const msg = (uid: number, snippet = "s"): UidMessage => ({ uid, message: { id: `${uid}@x`, from: "a@x", subject: `s${uid}`, snippet } });
const mailbox = { host: "imap.example.com", port: 993, user: "me@example.com", mailbox: "INBOX" };
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-mail-unit-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("batches", () => {
  test("the idempotency key is mail-<sha256 of the ids joined by newlines>", () => {
    const expected = "mail-" + createHash("sha256").update("a@x\nb@x").digest("hex");
    expect(idempotencyKeyFor([{ id: "a@x" }, { id: "b@x" }])).toBe(expected);
    expect(idempotencyKeyFor([{ id: "b@x" }, { id: "a@x" }])).not.toBe(expected);
  });

  test("buildBatch orders by UID", () => {
    const b = buildBatch([msg(9), msg(3)]);
    expect(b.uids).toEqual([3, 9]);
    expect(b.payload).toEqual({ source: "mail", messages: [msg(3).message, msg(9).message] });
    expect(b.idempotencyKey).toBe(idempotencyKeyFor([{ id: "3@x" }, { id: "9@x" }]));
  });

  test("splitIntoBatches respects maxMessages and maxBodyBytes; an oversized message goes alone", () => {
    expect(splitIntoBatches([msg(1), msg(2), msg(3)], { maxMessages: 2, maxBodyBytes: 1e6 }).map((b) => b.uids)).toEqual([[1, 2], [3]]);
    const big = "x".repeat(400);
    const split = splitIntoBatches([msg(1, big), msg(2, big), msg(3, "tiny")], { maxMessages: 10, maxBodyBytes: 600 });
    expect(split.map((b) => b.uids)).toEqual([[1], [2, 3]]);
    expect(splitIntoBatches([msg(1, "y".repeat(2000))], { maxMessages: 10, maxBodyBytes: 100 }).map((b) => b.uids)).toEqual([[1]]);
    expect(splitIntoBatches([], { maxMessages: 10, maxBodyBytes: 100 })).toEqual([]);
  });
});

describe("backoff", () => {
  test("grows by the factor and is capped; jitter only shortens", () => {
    const p = { initialMs: 1000, maxMs: 60_000, jitter: 0 };
    expect([1, 2, 3, 4, 7, 8, 20].map((n) => backoffDelay(n, p))).toEqual([1000, 2000, 4000, 8000, 60_000, 60_000, 60_000]);
    expect(backoffDelay(3, { ...p, jitter: 0.5 }, () => 1)).toBe(2000);
    expect(backoffDelay(3, { ...p, jitter: 0.5 }, () => 0)).toBe(4000);
  });

  test("sleep resolves false at once when aborted", async () => {
    const c = new AbortController();
    const pending = sleep(60_000, c.signal);
    c.abort();
    await expect(pending).resolves.toBe(false);
    await expect(sleep(1)).resolves.toBe(true);
  });
});

describe("checkpoint store", () => {
  test("save/load round trip in <stateDir>/mail/checkpoint-<key>.json, mode 0600", () => {
    const store = createCheckpointStore({ stateDir: dir, mailbox, now: () => new Date("2024-06-01T00:00:00Z") });
    expect(store.load()).toBeUndefined();
    const pending = buildBatch([msg(5)]);
    store.save({ uidValidity: "123", lastUid: 4, pending });
    expect(store.file).toBe(path.join(dir, "mail", `checkpoint-${mailboxKey(mailbox)}.json`));
    expect(fs.statSync(store.file).mode & 0o777).toBe(0o600);
    expect(store.load()).toEqual({ version: 1, ...mailbox, uidValidity: "123", lastUid: 4, pending, updatedAt: "2024-06-01T00:00:00.000Z" });
    store.save({ uidValidity: "123", lastUid: 5 });
    expect(store.load()!.pending).toBeUndefined();
    expect(fs.readdirSync(path.join(dir, "mail"))).toEqual([path.basename(store.file)]);
  });

  test("the key differs per host, port, user and mailbox (host case-insensitive)", () => {
    const keys = new Set([
      mailboxKey(mailbox),
      mailboxKey({ ...mailbox, port: 143 }),
      mailboxKey({ ...mailbox, user: "other@example.com" }),
      mailboxKey({ ...mailbox, mailbox: "Work" }),
      mailboxKey({ ...mailbox, host: "imap.other.com" }),
    ]);
    expect(keys.size).toBe(5);
    expect(mailboxKey({ ...mailbox, host: "IMAP.EXAMPLE.COM" })).toBe(mailboxKey(mailbox));
  });

  test("an unknown file format is an error naming the file", () => {
    const store = createCheckpointStore({ stateDir: dir, mailbox });
    fs.mkdirSync(path.dirname(store.file), { recursive: true });
    fs.writeFileSync(store.file, JSON.stringify({ version: 9 }));
    expect(() => store.load()).toThrow(`mail checkpoint ${store.file} has an unknown format; move it away to start fresh`);
  });

  test("regression: a checkpoint that is not JSON (empty, or garbage) failed with a bare SyntaxError naming no file; now the error names the file and what to do", () => {
    const store = createCheckpointStore({ stateDir: dir, mailbox });
    fs.mkdirSync(path.dirname(store.file), { recursive: true });
    for (const text of ["", "\u0000\u0000garbage"]) {
      fs.writeFileSync(store.file, text);
      expect(() => store.load()).toThrow(`mail checkpoint ${store.file} has an unknown format; move it away to start fresh`);
    }
  });
});

describe("watcher lock", () => {
  test("held locks refuse a second watcher; release frees it", () => {
    const lock = acquireWatcherLock(dir, mailbox);
    let err: unknown;
    try {
      acquireWatcherLock(dir, mailbox);
    } catch (e) {
      err = e;
    }
    expect(isMailError(err, "watcher_locked")).toBe(true);
    lock.release();
    acquireWatcherLock(dir, mailbox).release();
    expect(fs.existsSync(lock.file)).toBe(false);
  });

  test("a lock left by a dead process (kill -9) is taken over", () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const file = path.join(dir, "mail", `lock-${mailboxKey(mailbox)}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${dead.stdout}\n`);
    const lock = acquireWatcherLock(dir, mailbox);
    expect(fs.readFileSync(file, "utf8").split("\n")[0]).toBe(String(process.pid));
    lock.release();
  });
});
