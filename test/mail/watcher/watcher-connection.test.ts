/**
 * The watcher's IMAP side against a real server (dovecot): login failures, TLS mode
 * mismatches, a missing mailbox, reconnecting after the server restarts, polling when
 * the server has no IDLE, a UIDVALIDITY change, and one watcher per mailbox.
 */
import fs from "node:fs";
import path from "node:path";
import type { MailWatcherOptions } from "../../../src/mail/watcher/mail-watcher";
import type { MailConfig } from "../../../src/config/types";
import { isMailError } from "../../../src/mail/mail-error";
import { startDovecot, type DovecotServer } from "../helpers/dovecot";
import { useMailFixture } from "../helpers/mail-fixture";
import { testWatcher } from "../helpers/test-watcher";
import { mailConfigFor, PASSWORD_ENV } from "../helpers/mail-config";
import { plainMessage } from "../helpers/messages";
import { createCheckpointStore } from "../../../src/mail/watcher/checkpoint-store";

const fx = useMailFixture("iw-mail-state-");

const watcher = (server: Pick<DovecotServer, "port" | "user" | "password">, mail: Partial<MailConfig> = {}, extra: Partial<MailWatcherOptions> = {}) =>
  testWatcher(fx, {
    token: "connection-test-token-0123456789",
    server,
    mail: { pollSeconds: 3600, ...mail },
    extra: { reconnectBackoff: { initialMs: 100, maxMs: 300, jitter: 0 }, ...extra },
  });

const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => new Error("expected a rejection"),
    (e: unknown) => e,
  );

test("a wrong password is a clear, fatal error that never shows the password", async () => {
  const { w, log } = watcher({ ...fx.imap, password: "wrong-password-xyz" });
  const err = await rejection(w.runOnce());
  expect(isMailError(err, "imap_auth_failed")).toBe(true);
  const msg = (err as Error).message;
  expect(msg).toMatch(
    new RegExp(
      `^The IMAP server 127\\.0\\.0\\.1:${fx.imap.port} rejected the login for user "${fx.imap.user}" \\(server said: .*\\); check the password in environment variable ${PASSWORD_ENV} \\(Gmail, Fastmail and iCloud want an app password; Outlook\\.com accepts no password, see docs/mail\\.md\\)\\.$`,
    ),
  );
  expect(msg).not.toContain("wrong-password-xyz");
  expect(log.text()).not.toContain("wrong-password-xyz");
  // run() gives up too instead of hammering the server with bad logins.
  const { w: w2 } = watcher({ ...fx.imap, password: "wrong-password-xyz" });
  expect(isMailError(await rejection(w2.run(new AbortController().signal)), "imap_auth_failed")).toBe(true);
});

test("an unset password variable is reported before connecting", async () => {
  const { w } = watcher(fx.imap, {}, { env: {} });
  const err = await rejection(w.runOnce());
  expect(isMailError(err, "password_unavailable")).toBe(true);
  expect((err as Error).message).toBe(`hooks.mail.imap.password refers to environment variable ${PASSWORD_ENV}, which is not set (or empty) for this process.`);
});

test("a password file is read (one trailing newline dropped)", async () => {
  const file = path.join(fx.dir, "imap-password");
  fs.writeFileSync(file, `${fx.imap.password}\n`, { mode: 0o600 });
  const { w } = watcher(fx.imap, { imap: { ...mailConfigFor(fx.imap).imap, password: { file } } }, { env: {} });
  await expect(w.runOnce()).resolves.toMatchObject({ delivered: 0 });
});

test("a missing mailbox is a clear, fatal error", async () => {
  const { w } = watcher(fx.imap, { imap: { ...mailConfigFor(fx.imap).imap, mailbox: "NoSuchFolder" } });
  const err = await rejection(w.runOnce());
  expect(isMailError(err, "imap_mailbox_missing")).toBe(true);
  expect((err as Error).message).toBe(
    `The mailbox "NoSuchFolder" does not exist for user "${fx.imap.user}" on 127.0.0.1:${fx.imap.port}; check hooks.mail.imap.mailbox.`,
  );
});

test("tls mode against a plain-text port fails with a message pointing at hooks.mail.imap.tls", async () => {
  const { w } = watcher(fx.imap, { imap: { ...mailConfigFor(fx.imap).imap, tls: "tls" } });
  const err = await rejection(w.runOnce());
  expect(isMailError(err, "imap_connection")).toBe(true);
  expect((err as Error).message).toMatch(
    new RegExp(`^TLS with the IMAP server 127\\.0\\.0\\.1:${fx.imap.port} failed \\(.+\\); check hooks\\.mail\\.imap\\.tls`),
  );
});

test("starttls mode refuses a server that does not offer STARTTLS (no silent downgrade)", async () => {
  const { w } = watcher(fx.imap, { imap: { ...mailConfigFor(fx.imap).imap, tls: "starttls" } });
  const err = await rejection(w.runOnce());
  expect(isMailError(err, "imap_connection")).toBe(true);
  expect((err as Error).message).toContain(`127.0.0.1:${fx.imap.port}`);
});

test("a dropped IMAP connection is re-established and mail keeps flowing", async () => {
  const { w, log } = watcher(fx.imap);
  const controller = new AbortController();
  const running = w.run(controller.signal);
  await fx.receiver.waitFor(() => log.lines.some((l) => l.message === "IMAP connected"), "the first connection");

  await fx.imap.stop();
  await fx.receiver.waitFor(() => log.lines.some((l) => l.message === "IMAP connection closed; reconnecting"), "the drop to be noticed");
  await fx.receiver.waitFor(() => log.lines.filter((l) => l.message === "reconnecting to IMAP").length >= 2, "a failed reconnect attempt");
  await fx.imap.start();
  await fx.receiver.waitFor(() => log.lines.filter((l) => l.message === "IMAP connected").length >= 2, "the reconnection", 30_000);

  const m = plainMessage("after restart", "still here");
  await fx.imap.append(m.raw);
  await fx.receiver.waitFor(() => fx.deliveredIds().includes(m.id), "the message after the restart");
  controller.abort();
  await running;
  expect(fx.deliveredIds()).toEqual([m.id]);
  expect(log.lines.some((l) => l.level === "warn" && l.message === "mail watcher interrupted; reconnecting" && l.meta?.code === "imap_connection")).toBe(true);
});

test("UIDVALIDITY change: the checkpoint restarts at the new end of the mailbox, with a warning", async () => {
  const { w } = watcher(fx.imap);
  await w.runOnce();
  const old = fx.checkpoint();
  const newValidity = Number(old.uidValidity) + 1000;
  fx.imap.setUidValidity(newValidity);
  await fx.imap.append(plainMessage("during the change", "not sent").raw);

  const { w: again, log } = watcher(fx.imap);
  expect(await again.runOnce()).toMatchObject({ delivered: 0, uidValidity: String(newValidity) });
  const warn = log.lines.find((l) => l.message === "mailbox UIDVALIDITY changed; checkpoint restarts at the current end of the mailbox");
  expect(warn?.level).toBe("warn");
  expect(warn?.meta).toMatchObject({ previousUidValidity: old.uidValidity, uidValidity: String(newValidity) });

  const m = plainMessage("after the change", "sent");
  await fx.imap.append(m.raw);
  expect((await again.runOnce()).delivered).toBe(1);
  expect(fx.deliveredIds()).toEqual([m.id]);
});

test("only one watcher per mailbox: a second one is refused with the owner's pid", async () => {
  const { w } = watcher(fx.imap);
  const controller = new AbortController();
  const running = w.run(controller.signal);
  try {
    const { w: second } = watcher(fx.imap);
    const err = await rejection(second.runOnce());
    expect(isMailError(err, "watcher_locked")).toBe(true);
    expect((err as Error).message).toContain(`Another mail watcher (pid ${process.pid}) is already running for ${fx.imap.user} on 127.0.0.1/INBOX`);
  } finally {
    controller.abort();
    await running;
  }
  const { w: third } = watcher(fx.imap);
  await expect(third.runOnce()).resolves.toMatchObject({ rejected: 0 });
});

test("without IDLE the watcher polls every pollSeconds", async () => {
  const noIdle = await startDovecot({ imapCapability: "IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE UIDPLUS" });
  try {
    const { w, log } = watcher(noIdle, { pollSeconds: 1 });
    const controller = new AbortController();
    const running = w.run(controller.signal);
    await fx.receiver.waitFor(() => log.lines.some((l) => l.message === "IMAP connected"), "the connection");
    expect(log.lines.find((l) => l.message === "IMAP connected")?.meta?.idle).toBe(false);
    const m = plainMessage("polled", "found by polling");
    await noIdle.append(m.raw);
    await fx.receiver.waitFor(() => fx.deliveredIds().includes(m.id), "the polled message");
    controller.abort();
    await running;
  } finally {
    await noIdle.cleanup();
  }
});

test('a damaged checkpoint stops run() with the error naming the file (regression: run retried it for ever, logging only "Error")', async () => {
  const store = createCheckpointStore({ stateDir: fx.dir, mailbox: { host: "127.0.0.1", port: fx.imap.port, user: fx.imap.user, mailbox: "INBOX" } });
  fs.mkdirSync(path.dirname(store.file), { recursive: true });
  fs.writeFileSync(store.file, "not json{");
  const { w } = watcher(fx.imap);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 3000);
  const err = await rejection(w.run(stop.signal));
  clearTimeout(timer);
  expect(isMailError(err, "checkpoint_unreadable")).toBe(true);
  expect((err as Error).message).toBe(`mail checkpoint ${store.file} has an unknown format; move it away to start fresh.`);
});
