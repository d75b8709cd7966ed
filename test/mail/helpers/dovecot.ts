/**
 * A real IMAP server for the mail tests: Debian's dovecot (`dovecot-imapd`, listed
 * in .ci/apt-packages.txt) started as a child process on a free loopback port with a
 * throwaway config in a temp dir — maildir storage, one passwd-file user with a plain
 * password, no TLS, logs on stderr. If dovecot is missing or cannot start, the helper
 * throws with a clear message (the tests never skip).
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ImapFlow } from "imapflow";
import { accounts, writeConfig } from "./dovecot-config";
import { freePort } from "../../helpers/free-port";

export { freePort };

export interface DovecotServer {
  readonly host: "127.0.0.1";
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Temp dir holding config, mail and runtime files. */
  readonly dir: string;
  /** Everything dovecot wrote to stderr so far (for failure messages). */
  log(): string;
  /** Appends a raw message to a mailbox (default INBOX) through IMAP; resolves to its UID. */
  append(raw: string | Buffer, mailbox?: string): Promise<number>;
  /** Creates a mailbox (folder). */
  createMailbox(name: string): Promise<void>;
  /** Deletes and expunges one message by UID (as another mail client would). */
  expunge(uid: number, mailbox?: string): Promise<void>;
  /** Sets the mailbox's UIDVALIDITY with doveadm (simulates a server-side mailbox rebuild). */
  setUidValidity(value: number, mailbox?: string): void;
  /** Stops the server (SIGTERM, bounded wait). Connections drop. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same mail. */
  start(): Promise<void>;
  /** Stops it and removes the temp dir. */
  cleanup(): Promise<void>;
}

const CANDIDATES = ["/usr/sbin/dovecot", "/usr/local/sbin/dovecot", "/sbin/dovecot"];

function findBinary(name: string, candidates: string[]): string {
  for (const c of candidates) if (fs.existsSync(c)) return c;
  try {
    return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      `${name} is not installed: the mail tests need a real IMAP server. Install the packages listed in .ci/apt-packages.txt ` +
        `(apt-get install dovecot-imapd) — .ci/run does this in CI.`,
    );
  }
}

/** Resolves once the server sends its IMAP greeting, or rejects at the deadline. */
async function waitForGreeting(port: number, deadline: number, exited: () => string | undefined): Promise<void> {
  let lastError = "no answer";
  while (Date.now() < deadline) {
    const gone = exited();
    if (gone) throw new Error(gone);
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, "127.0.0.1");
      let buf = "";
      const done = (v: boolean): void => {
        sock.destroy();
        resolve(v);
      };
      sock.setTimeout(2000, () => done(false));
      sock.on("data", (d) => {
        buf += d.toString("latin1");
        if (buf.includes("\r\n")) done(buf.startsWith("* OK"));
      });
      sock.on("error", (e) => {
        lastError = (e as NodeJS.ErrnoException).code ?? e.message;
        done(false);
      });
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`dovecot did not greet on 127.0.0.1:${port} in time (${lastError})`);
}

export interface StartDovecotOptions {
  user?: string;
  password?: string;
  /** Replaces the advertised capabilities (e.g. without IDLE, to exercise polling). */
  imapCapability?: string;
  /** Bound of startup (default 15 s). */
  startTimeoutMs?: number;
}

/** Starts a throwaway dovecot. Always call `cleanup()` (e.g. in afterAll). */
export async function startDovecot(opts: StartDovecotOptions = {}): Promise<DovecotServer> {
  const bin = findBinary("dovecot", CANDIDATES);
  const user = opts.user ?? "tester";
  const password = opts.password ?? "test-pass-123";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-dovecot-"));
  const port = await freePort();
  const acc = accounts();
  const conf = writeConfig(dir, port, user, password, acc, opts.imapCapability);
  let child: ChildProcess | undefined;
  let stderr = "";

  async function start(): Promise<void> {
    let exitInfo: string | undefined;
    // Its own process group, so stopping it also ends the per-connection imap processes
    // (dovecot leaves those running when only the master exits).
    const proc = spawn(bin, ["-F", "-c", conf], { stdio: ["ignore", "ignore", "pipe"], detached: true });
    child = proc;
    proc.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
    });
    proc.on("exit", (code, signal) => {
      exitInfo = `dovecot exited during startup (code ${code}, signal ${signal}). Its log:\n${stderr.slice(-4000)}`;
    });
    proc.on("error", (e) => {
      exitInfo = `dovecot could not be started (${e.message})`;
    });
    try {
      await waitForGreeting(port, Date.now() + (opts.startTimeoutMs ?? 15_000), () => exitInfo);
    } catch (e) {
      await stop();
      throw new Error(`Cannot start the test IMAP server (dovecot): ${(e as Error).message}`);
    }
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const group = proc.pid!;
    const signalGroup = (sig: NodeJS.Signals): void => {
      try {
        process.kill(-group, sig);
      } catch {
        // The group is already gone.
      }
    };
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => signalGroup("SIGKILL"), 10_000);
      proc.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      signalGroup("SIGTERM");
    });
    // Whatever of the group outlived the master (connection processes) ends now.
    signalGroup("SIGKILL");
    // The master is gone; wait until the port no longer answers (children exit with it).
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const open = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, "127.0.0.1");
        s.once("connect", () => {
          s.destroy();
          resolve(true);
        });
        s.once("error", () => resolve(false));
      });
      if (!open) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  await start();
  const connectClient = (): ImapFlow =>
    new ImapFlow({ host: "127.0.0.1", port, secure: false, doSTARTTLS: false, auth: { user, pass: password }, logger: false });

  return {
    host: "127.0.0.1",
    port,
    user,
    password,
    dir,
    log: () => stderr,
    async createMailbox(name) {
      const client = connectClient();
      await client.connect();
      try {
        await client.mailboxCreate(name);
      } finally {
        await client.logout().catch(() => client.close());
      }
    },
    async append(raw, mailbox = "INBOX") {
      const client = connectClient();
      await client.connect();
      try {
        const res = await client.append(mailbox, raw);
        if (!res || typeof res.uid !== "number") throw new Error("dovecot did not report the appended message's UID");
        return res.uid;
      } finally {
        await client.logout().catch(() => client.close());
      }
    },
    async expunge(uid, mailbox = "INBOX") {
      const client = connectClient();
      await client.connect();
      try {
        await client.mailboxOpen(mailbox);
        if (!(await client.messageDelete(String(uid), { uid: true }))) throw new Error(`dovecot did not delete UID ${uid} of ${mailbox}`);
      } finally {
        await client.logout().catch(() => client.close());
      }
    },
    setUidValidity(value, mailbox = "INBOX") {
      const doveadm = findBinary("doveadm", ["/usr/bin/doveadm", "/usr/local/bin/doveadm"]);
      execFileSync(doveadm, ["-c", conf, "mailbox", "update", "-u", user, "--uid-validity", String(value), mailbox], { stdio: "pipe" });
    },
    stop,
    start,
    async cleanup() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
