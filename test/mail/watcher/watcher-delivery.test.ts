/**
 * The mail watcher against a real IMAP server (dovecot) and a local receiver:
 * what is sent, how it is batched, and that the checkpoint moves only forward.
 */
import type { MailWatcherOptions } from "../../../src/mail/watcher/mail-watcher";
import { idempotencyKeyFor } from "../../../src/mail/watcher/batch";
import type { MailBatchPayload } from "../../../src/mail/watcher/mail-payload";
import type { MailConfig } from "../../../src/config/types";
import { useMailFixture } from "../helpers/mail-fixture";
import { testWatcher } from "../helpers/test-watcher";
import { mailConfigFor } from "../helpers/mail-config";
import { startEndlessAnswer } from "../helpers/endless-answer";
import { alternativeMessage, htmlOnlyMessage, largeMessage, nonAsciiSubjectMessage, plainMessage } from "../helpers/messages";

const TOKEN = "test-hook-token-0123456789abcdef";
const fx = useMailFixture("iw-mail-state-");

const watcher = (mail: Partial<MailConfig> = {}, extra: Partial<MailWatcherOptions> = {}) => testWatcher(fx, { token: TOKEN, mail, extra });

const payloadOf = (i: number): MailBatchPayload => fx.receiver.posts[i]!.body as MailBatchPayload;

test("first start sends nothing that was already in the mailbox and remembers UIDNEXT-1", async () => {
  await fx.imap.append(plainMessage("old mail", "before the watcher existed").raw);
  const { w } = watcher();
  const summary = await w.runOnce();
  expect(summary).toMatchObject({ delivered: 0, batches: 0, rejected: 0 });
  expect(fx.receiver.posts).toHaveLength(0);
  const nextUid = await fx.imap.append(plainMessage("probe", "x").raw);
  expect(summary.lastUid).toBe(nextUid - 1);
});

test("five kinds of message arrive as one post with readable plain text, then nothing is re-sent", async () => {
  const { w } = watcher({ includeBody: true, maxBytes: 2048 });
  await w.runOnce();
  const plain = plainMessage("Quarterly report", "Hi,\r\nthe report is attached.\r\nAlice");
  const html = htmlOnlyMessage(
    "Your invoice",
    '<html><body><h1>Invoice 42</h1><p>Amount due: <b>12,50&nbsp;€</b></p><a href="https://pay.example/x">Pay now</a><img src="cid:logo"></body></html>',
  );
  const alt = alternativeMessage("Meeting moved", "The meeting moved to 3pm.", "<p>The meeting moved to <b>3pm</b>. HTML VERSION</p>");
  const utf8 = nonAsciiSubjectMessage("Grüße aus Köln – 東京 ✓", "Schöne Grüße!");
  const large = largeMessage("Big log", 6000);
  for (const m of [plain, html, alt, utf8, large]) await fx.imap.append(m.raw);

  const summary = await w.runOnce();
  expect(summary).toMatchObject({ delivered: 5, batches: 1, rejected: 0 });
  expect(fx.receiver.posts).toHaveLength(1);
  const post = fx.receiver.posts[0]!;
  expect(post.headers.authorization).toBe(`Bearer ${TOKEN}`);
  expect(post.headers["content-type"]).toBe("application/json");
  const body = payloadOf(0);
  expect(body.source).toBe("mail");
  expect(body.messages.map((m) => m.id)).toEqual([plain.id, html.id, alt.id, utf8.id, large.id]);
  expect(post.headers["idempotency-key"]).toBe(idempotencyKeyFor(body.messages));

  const [p, h, a, u, l] = body.messages;
  expect(p).toEqual({
    id: plain.id,
    from: "Alice Example <alice@example.com>",
    subject: "Quarterly report",
    snippet: "Hi, the report is attached. Alice",
    body: "Hi,\nthe report is attached.\nAlice",
    date: "2024-06-04T10:15:00.000Z",
  });
  expect(h!.subject).toBe("Your invoice");
  expect(h!.snippet).toBe("INVOICE 42 Amount due: 12,50 € Pay now");
  expect(h!.body).not.toMatch(/<|>|https:|cid:/);
  expect(a!.snippet).toBe("The meeting moved to 3pm.");
  expect(u!.subject).toBe("Grüße aus Köln – 東京 ✓");
  expect(u!.snippet).toBe("Schöne Grüße!");
  expect(Buffer.byteLength(l!.snippet)).toBeLessThanOrEqual(500);
  expect(l!.snippet.endsWith("…")).toBe(true);
  expect(Buffer.byteLength(l!.body!)).toBeLessThanOrEqual(2048);
  expect(l!.body!.startsWith("line 000001 lorem ipsum")).toBe(true);

  const again = await w.runOnce();
  expect(again).toMatchObject({ delivered: 0, batches: 0 });
  expect(fx.receiver.posts).toHaveLength(1);
});

test("without includeBody there is no body, and the snippet is bounded by maxBytes", async () => {
  const { w } = watcher({ includeBody: false, maxBytes: 64 });
  await w.runOnce();
  await fx.imap.append(largeMessage("Big", 100).raw);
  await w.runOnce();
  const [m] = payloadOf(0).messages;
  expect(m!.body).toBeUndefined();
  expect(Buffer.byteLength(m!.snippet)).toBeLessThanOrEqual(64);
  expect(m!.snippet.startsWith("line 000001")).toBe(true);
});

test("more messages than maxMessages are split into several posts in UID order", async () => {
  const { w } = watcher({ maxMessages: 2 });
  await w.runOnce();
  const ids: string[] = [];
  for (let i = 1; i <= 5; i++) {
    const m = plainMessage(`batch ${i}`, `message ${i}`);
    ids.push(m.id);
    await fx.imap.append(m.raw);
  }
  const summary = await w.runOnce();
  expect(summary).toMatchObject({ delivered: 5, batches: 3 });
  expect(fx.receiver.posts.map((p) => (p.body as MailBatchPayload).messages.map((m) => m.id))).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
  expect(new Set(fx.receiver.posts.map((p) => p.headers["idempotency-key"])).size).toBe(3);
});

test("batches are split to stay within hooks.maxBodyBytes", async () => {
  const { w } = watcher({ maxBytes: 4000, includeBody: true }, { maxBodyBytes: 6000 });
  await w.runOnce();
  await fx.imap.append(largeMessage("a", 200).raw);
  await fx.imap.append(largeMessage("b", 200).raw);
  await w.runOnce();
  expect(fx.receiver.posts.map((p) => (p.body as MailBatchPayload).messages.length)).toEqual([1, 1]);
  for (const p of fx.receiver.posts) expect(Buffer.byteLength(JSON.stringify(p.body))).toBeLessThanOrEqual(6000);
});

test("a message too large for hooks.maxBodyBytes on its own is sent with its body cut to fit (regression: it was posted whole, refused 413 and skipped: lost)", async () => {
  // hooks.mail.maxBytes may be set up to 10 MiB while hooks.maxBodyBytes stays 256 KiB: the same at a smaller scale.
  const { w } = watcher({ maxBytes: 8000, includeBody: true }, { maxBodyBytes: 3000 });
  await w.runOnce();
  const m = largeMessage("too big alone", 200);
  await fx.imap.append(m.raw);
  const summary = await w.runOnce();
  expect(summary).toMatchObject({ delivered: 1, rejected: 0 });
  expect(fx.receiver.posts).toHaveLength(1);
  expect(Buffer.byteLength(JSON.stringify(fx.receiver.posts[0]!.body))).toBeLessThanOrEqual(3000);
  const [message] = payloadOf(0).messages;
  expect(message).toMatchObject({ id: m.id, subject: "too big alone" });
  expect(message!.body).toMatch(/^line 000001 lorem ipsum[\s\S]*…$/);
});

test("--since <uid> replays from that UID (inclusive)", async () => {
  const first = plainMessage("replay me", "one");
  const uid = await fx.imap.append(first.raw);
  const second = plainMessage("and me", "two");
  await fx.imap.append(second.raw);
  const { w } = watcher({}, { since: { uid } });
  const summary = await w.runOnce();
  expect(summary.delivered).toBe(2);
  expect(payloadOf(0).messages.map((m) => m.id)).toEqual([first.id, second.id]);
});

test("--since <date> replays mail received on or after that day", async () => {
  await fx.imap.createMailbox("Since");
  const m = plainMessage("today", "recent");
  await fx.imap.append(m.raw, "Since");
  const imapConfig = { ...mailConfigFor(fx.imap).imap, mailbox: "Since" };
  const { w } = watcher({ imap: imapConfig }, { since: { date: new Date(Date.now() + 2 * 86400_000) } });
  expect((await w.runOnce()).delivered).toBe(0);
  const { w: w2 } = watcher({ imap: imapConfig }, { since: { date: new Date(Date.now() - 86400_000) } });
  expect((await w2.runOnce()).delivered).toBe(1);
  expect(payloadOf(0).messages.map((x) => x.id)).toEqual([m.id]);
});

test("the checkpoint file is keyed by mailbox and holds the UIDVALIDITY; nothing secret is logged", async () => {
  const { w, log } = watcher({ includeBody: true });
  await w.runOnce();
  await fx.imap.append(plainMessage("secret stuff", "BODY-MARKER-7f3a the launch code").raw);
  await w.runOnce();
  const cp = fx.checkpoint();
  expect(cp).toMatchObject({ version: 1, host: "127.0.0.1", user: fx.imap.user, mailbox: "INBOX" });
  expect(cp!.uidValidity).toMatch(/^\d+$/);
  expect(cp!.pending).toBeUndefined();
  const text = log.text();
  expect(text).toContain("mail batch delivered");
  expect(text).not.toContain(fx.imap.password);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain("BODY-MARKER-7f3a");
  expect(text).not.toContain("secret stuff");
});

test("a hook that answers 202 with a body that never ends: runOnce delivers, advances the checkpoint and returns at once (regression: it read the body until the 30 s attempt timeout, holding all of it in memory)", async () => {
  const endless = await startEndlessAnswer(202);
  try {
    const { w } = watcher({}, { hookUrl: endless.url });
    await w.runOnce();
    const uid = await fx.imap.append(plainMessage("to an endless hook", "x").raw);
    const startedAt = Date.now();
    await expect(w.runOnce()).resolves.toMatchObject({ delivered: 1, batches: 1, lastUid: uid });
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(fx.checkpoint()).toMatchObject({ lastUid: uid });
    expect(fx.checkpoint().pending).toBeUndefined();
    expect(endless.bytesSent).toBeLessThan(32 * 1024 * 1024);
  } finally {
    await endless.close();
  }
});
