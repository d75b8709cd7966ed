/**
 * A full disk under the real gateway (SPEC §7 "Storage faults"): the state dir
 * lives on a real 2 MB tmpfs, a filler file leaves a few KiB, and wakes and agent
 * runs (of varied sizes, so writes are cut short mid-line) are sent until each
 * kind is refused. Then the filler is deleted and, without a restart, more are
 * sent; then the gateway restarts. Checked:
 *   - every refusal is 503 storage_unavailable with Retry-After (never a 500);
 *   - no torn or glued line in the journal or any session log;
 *   - every 2xx is there after the restart (a wake's event in the main session
 *     and the journal, an agent's run in the store, finished);
 *   - nothing of a 503'd request took effect (its text is nowhere);
 *   - service resumed by itself once space returned;
 *   - the log names the cause (ENOSPC / SQLITE_FULL) and never a request's text.
 * Regression: with the same scenario the first wake answered 200 after space
 * returned was lost after a restart (4 of 4 runs), torn lines were glued, refusals
 * were 500 internal_error and the log never said ENOSPC.
 *
 * Mounting needs root (CI runs as root): elsewhere the suite is skipped with a
 * message saying so. Requires the built dist.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSessionStore } from "../../src/gateway/sessions/session-store";
import { startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { CRASH_TOKEN, getRun, postJson, queryPluginDb, type HttpResult } from "./crash-support";
import { until } from "../helpers/until";

jest.setTimeout(180_000);

const base = fs.mkdtempSync(path.join(os.tmpdir(), "gw-diskfull-"));
const mnt = path.join(base, "tmpfs");

/** Mounts a 2 MB tmpfs; the reason it cannot, or undefined when mounted. */
function mountSmallTmpfs(): string | undefined {
  if (process.platform !== "linux") return "tmpfs mounts need Linux";
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root";
  fs.mkdirSync(mnt, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt], { stdio: "pipe" });
    return undefined;
  } catch (e) {
    return `mount -t tmpfs failed: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim()}`;
  }
}

const skipReason = mountSmallTmpfs();
if (skipReason) {
  console.warn(`SKIPPED test/crash/disk-full.test.ts: ${skipReason}; run the suite as root to test a real full disk.`);
  fs.rmSync(base, { recursive: true, force: true });
}
const describeMounted = skipReason ? describe.skip : describe;

interface Sent {
  kind: "wake" | "agent";
  mark: string;
  phase: "before" | "full" | "after";
  res: HttpResult;
}

/** Fills the file system: writes until ENOSPC, then frees `slack` bytes of the filler. */
function fill(file: string, slack: number): void {
  const fd = fs.openSync(file, "w");
  const chunk = Buffer.alloc(64 * 1024, 0x2e);
  let size = 0;
  try {
    for (;;) size += fs.writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
  }
  fs.ftruncateSync(fd, Math.max(0, size - slack));
  fs.closeSync(fd);
}

/** Lines that are not whole JSON objects (torn or glued), per file, plus files not ending in a newline. */
function tornLines(stateDir: string): string[] {
  const files = [path.join(stateDir, "journal.jsonl")];
  const sessions = path.join(stateDir, "sessions");
  for (const f of fs.readdirSync(sessions)) if (f.endsWith(".log.jsonl")) files.push(path.join(sessions, f));
  const bad: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    if (text !== "" && !text.endsWith("\n")) bad.push(`${path.basename(file)}: no final newline`);
    text.split("\n").forEach((line, i) => {
      if (line === "") return;
      try {
        JSON.parse(line);
      } catch {
        bad.push(`${path.basename(file)} line ${i + 1}`);
      }
    });
  }
  return bad;
}

describeMounted("a full disk under the real gateway (2 MB tmpfs)", () => {
  let gw: GatewayProcess | undefined;
  const stateDir = path.join(mnt, "state");
  const config = {
    gateway: { stateDir },
    hooks: { enabled: true, token: CRASH_TOKEN, rateLimit: { enabled: false }, runs: { maxConcurrent: 2 } },
    agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: "off" } } },
  };
  const start = async () => (gw = await startGateway({ dir: base, config, startTimeoutMs: 60_000 }));

  afterAll(async () => {
    await gw?.kill9();
    try {
      execFileSync("umount", ["-l", mnt], { stdio: "pipe" });
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it("refuses with 503 storage_unavailable while full, loses no 2xx, applies no 503, tears no line, and resumes by itself", async () => {
    await start();
    const sent: Sent[] = [];
    let size = 0;
    const send = async (kind: Sent["kind"], phase: Sent["phase"]) => {
      const mark = `MARK-${kind}-${sent.length}-${phase}-Z`;
      // 0.3 to 6 KiB, varied, so writes straddle the last free pages.
      const text = `${mark} ${"w".repeat(300 + ((size++ * 1543) % 5800))}`;
      const res =
        kind === "wake"
          ? await postJson(gw!, "wake", { text, mode: "next-heartbeat" })
          : await postJson(gw!, "agent", { message: text, name: `N${sent.length}`, deliver: false, wakeMode: "next-heartbeat" });
      sent.push({ kind, mark, phase, res });
      return res;
    };

    for (let i = 0; i < 4; i++) {
      expect((await send("wake", "before")).status).toBe(200);
      expect((await send("agent", "before")).status).toBe(202);
    }
    const runIdsOf = (phase?: Sent["phase"]) =>
      sent.filter((s) => s.kind === "agent" && s.res.status === 202 && (!phase || s.phase === phase)).map((s) => s.res.body!.runId as string);
    const finished = async (ids: string[]) => {
      await until(
        async () => {
          for (const id of ids) {
            const res = await getRun(gw!, id);
            expect(res.status).toBe(200);
            if (["queued", "running"].includes((res.body!.run as { status: string }).status)) return false;
          }
          return true;
        },
        `runs ${ids.length} to finish`,
        { timeoutMs: 60_000 },
      );
    };
    await finished(runIdsOf("before"));

    const filler = path.join(mnt, "filler");
    fill(filler, 24 * 1024);
    const refused = { wake: 0, agent: 0 };
    for (let i = 0; i < 300 && (refused.wake < 3 || refused.agent < 3); i++) {
      const kind = i % 2 === 0 ? "wake" : "agent";
      const res = await send(kind, "full");
      if (res.status === 503) {
        expect(res.body).toMatchObject({ ok: false, code: "storage_unavailable" });
        expect(res.headers.get("retry-after")).toBe("30");
        refused[kind]++;
      } else {
        expect(res.status).toBe(kind === "wake" ? 200 : 202);
      }
    }
    expect(refused.wake).toBeGreaterThanOrEqual(3);
    expect(refused.agent).toBeGreaterThanOrEqual(3);

    // Space returns; no restart.
    fs.rmSync(filler);
    for (let i = 0; i < 5; i++) {
      expect((await send("wake", "after")).status).toBe(200);
      expect((await send("agent", "after")).status).toBe(202);
    }
    await finished(runIdsOf());
    expect(await gw!.stop("SIGTERM")).toBe(0);
    const log = gw!.stderr();
    expect(tornLines(stateDir)).toEqual([]);

    await start();
    await finished(runIdsOf());
    expect(await gw!.stop("SIGTERM")).toBe(0);
    const logAfter = `${log}${gw!.stderr()}`;

    const journal = fs.readFileSync(path.join(stateDir, "journal.jsonl"), "utf8");
    const sessionsCopy = path.join(base, "sessions-copy");
    fs.cpSync(path.join(stateDir, "sessions"), sessionsCopy, { recursive: true });
    const mainPending = createSessionStore({ dir: sessionsCopy })
      .get("main")
      .pending.map((e) => e.text)
      .join("\n");
    const runActions = queryPluginDb<{ action: string }>(stateDir, "SELECT action FROM runs")
      .map((r) => r.action)
      .join("\n");

    const lost = sent.filter(
      (s) => s.res.status < 300 && (s.kind === "wake" ? !journal.includes(s.mark) || !mainPending.includes(s.mark) : !runActions.includes(s.mark)),
    );
    const applied = sent.filter((s) => s.res.status === 503 && (journal.includes(s.mark) || mainPending.includes(s.mark) || runActions.includes(s.mark)));
    expect(lost.map((s) => s.mark)).toEqual([]);
    expect(applied.map((s) => s.mark)).toEqual([]);
    expect(tornLines(stateDir)).toEqual([]);

    expect(logAfter).toMatch(/ENOSPC|SQLITE_FULL/);
    expect(logAfter).toContain('"code":"storage_unavailable"');
    for (const s of sent) expect(logAfter).not.toContain(s.mark);
  });
});
