/**
 * The shared setup of the mail tests that run against a real IMAP server: one
 * dovecot per test file (started in beforeAll, removed in afterAll) and, per test,
 * a fresh hook receiver and a fresh temp dir (closed and removed after the test).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createCheckpointStore, type Checkpoint } from "../../../src/mail/watcher/checkpoint-store";
import type { MailBatchPayload } from "../../../src/mail/watcher/mail-payload";
import { startDovecot, type DovecotServer } from "./dovecot";
import { startHookReceiver, type HookReceiver } from "./hook-receiver";

export interface MailFixture {
  /** The file's dovecot (valid from beforeAll on). */
  readonly imap: DovecotServer;
  /** This test's receiver (valid from beforeEach on). */
  readonly receiver: HookReceiver;
  /** This test's temp dir (the watcher's state dir or the config dir). */
  readonly dir: string;
  /** The checkpoint stored in `dir` for the fixture's INBOX (throws when none). */
  checkpoint(): Checkpoint;
  /** Ids of the messages in every batch the receiver accepted, in order. */
  deliveredIds(): string[];
}

/** Registers the jest hooks of the setup above; `tmpPrefix` names the temp dirs. */
export function useMailFixture(tmpPrefix: string): MailFixture {
  let imap: DovecotServer | undefined;
  let receiver: HookReceiver | undefined;
  let dir: string | undefined;

  beforeAll(async () => {
    imap = await startDovecot();
  });
  afterAll(async () => {
    await imap?.cleanup();
  });
  beforeEach(async () => {
    receiver = await startHookReceiver();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  });
  afterEach(async () => {
    await receiver!.close();
    fs.rmSync(dir!, { recursive: true, force: true });
  });

  const fixture: MailFixture = {
    get imap() {
      return imap!;
    },
    get receiver() {
      return receiver!;
    },
    get dir() {
      return dir!;
    },
    checkpoint: () =>
      createCheckpointStore({
        stateDir: fixture.dir,
        mailbox: { host: "127.0.0.1", port: fixture.imap.port, user: fixture.imap.user, mailbox: "INBOX" },
      }).load()!,
    deliveredIds: () => fixture.receiver.accepted().flatMap((p) => (p.body as MailBatchPayload).messages.map((m) => m.id)),
  };
  return fixture;
}
