/**
 * Messages the IMAP server (dovecot) returned no content for: fetched again, sent as a
 * placeholder when they never come, reported when they were removed meanwhile — never
 * dropped without a trace. The server's answers are altered by a wrapper around the real
 * session; everything else is real.
 */
import { openImapSession, type ImapSession, type OpenImapSessionOptions } from "../../../src/mail/watcher/imap-session";
import type { MailBatchPayload } from "../../../src/mail/watcher/mail-payload";
import { useMailFixture } from "../helpers/mail-fixture";
import { testWatcher } from "../helpers/test-watcher";
import { plainMessage } from "../helpers/messages";

const TOKEN = "missing-source-token-0123456789ab";
const fx = useMailFixture("iw-mail-state-");

type Fetch = ImapSession["fetchSources"];
/** Sessions whose fetchSources goes through `wrap(real, uids, max)`. */
function wrappedFetch(wrap: (real: Fetch, uids: number[], max: number) => ReturnType<Fetch>) {
  return async (o: OpenImapSessionOptions): Promise<ImapSession> => {
    const real = await openImapSession(o);
    const fetchSources: Fetch = (uids, max) => wrap(real.fetchSources, uids, max);
    return new Proxy(real, { get: (target, prop) => (prop === "fetchSources" ? fetchSources : Reflect.get(target, prop)) });
  };
}

const watcher = (openSession: ReturnType<typeof wrappedFetch>) =>
  testWatcher(fx, { token: TOKEN, mail: { pollSeconds: 3600 }, extra: { openSession, refetchDelaysMs: [10, 20] } });

const warnings = (log: ReturnType<typeof watcher>["log"], message: string) =>
  log.lines.filter((l) => l.level === "warn" && l.message === message).map(({ meta }) => ({ ...meta, plugin: undefined, module: undefined }));

async function startedWatcherAndTwoMessages(openSession: ReturnType<typeof wrappedFetch>) {
  const { w, log } = watcher(openSession);
  await w.runOnce();
  const a = plainMessage("secret subject A", "first body");
  const b = plainMessage("secret subject B", "second body");
  const uidA = await fx.imap.append(a.raw);
  const uidB = await fx.imap.append(b.raw);
  return { w, log, a, b, uidA, uidB };
}

test("a message the server first returned without content is fetched again and delivered, not skipped", async () => {
  let dropUid = 0;
  let dropped = false;
  const open = wrappedFetch(async (real, uids, max) => {
    const sources = await real(uids, max);
    if (dropped || !uids.includes(dropUid)) return sources;
    dropped = true;
    return sources.filter((s) => s.uid !== dropUid);
  });
  const { w, log, a, b, uidB } = await startedWatcherAndTwoMessages(open);
  dropUid = uidB;
  await expect(w.runOnce()).resolves.toMatchObject({ delivered: 2, batches: 1, lastUid: uidB });
  expect(fx.deliveredIds()).toEqual([a.id, b.id]);
  expect(warnings(log, "the server returned no content for a message; fetching it again")).toEqual([
    { mailbox: "INBOX", uid: uidB, attempt: 1, retryInMs: 10 },
  ]);
  expect(log.text()).not.toContain("secret subject");
});

test("a message that never comes with content is sent as a placeholder naming its UID, and later mail still flows", async () => {
  let dropUid = 0;
  const open = wrappedFetch(async (real, uids, max) => (await real(uids, max)).filter((s) => s.uid !== dropUid));
  const { w, log, a, uidB } = await startedWatcherAndTwoMessages(open);
  dropUid = uidB;
  const c = plainMessage("secret subject C", "third body");
  const uidC = await fx.imap.append(c.raw);
  await expect(w.runOnce()).resolves.toMatchObject({ delivered: 3, lastUid: uidC });
  const messages = fx.receiver.accepted().flatMap((p) => (p.body as MailBatchPayload).messages);
  expect(messages.map((m) => m.id)).toEqual([a.id, `${fx.checkpoint().uidValidity}.${uidB}@127.0.0.1`, c.id]);
  expect(messages[1]).toEqual({
    id: `${fx.checkpoint().uidValidity}.${uidB}@127.0.0.1`,
    from: "(unknown sender)",
    subject: `(message could not be read from the server; UID ${uidB})`,
    snippet: "",
  });
  expect(warnings(log, "the server returned no content for a message; fetching it again")).toHaveLength(2);
  expect(warnings(log, "the server returned no content for a message after every retry; sending a placeholder for it")).toEqual([
    { mailbox: "INBOX", uid: uidB, attempts: 3 },
  ]);
  expect(log.text()).not.toContain("secret subject");
});

test("a message removed from the mailbox before it could be read is not sent, and a warning names its mailbox and UID", async () => {
  let removeUid = 0;
  const open = wrappedFetch(async (real, uids, max) => {
    if (removeUid !== 0 && uids.includes(removeUid)) await fx.imap.expunge(removeUid);
    return real(uids, max);
  });
  const { w, log, a, uidB } = await startedWatcherAndTwoMessages(open);
  removeUid = uidB;
  await expect(w.runOnce()).resolves.toMatchObject({ delivered: 1, lastUid: uidB });
  expect(fx.deliveredIds()).toEqual([a.id]);
  expect(warnings(log, "message removed from the mailbox before it could be read; not sent")).toEqual([{ mailbox: "INBOX", uid: uidB }]);
  expect(warnings(log, "the server returned no content for a message; fetching it again")).toHaveLength(0);
});
