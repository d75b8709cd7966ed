/**
 * A torn last commit (issue 35 finding 4), on the real gateway process with a real
 * SIGKILL between the two writes SQLite makes for a WAL commit frame: its 24-byte
 * header, then its page (test/fixtures/torn-commit/torn-commit.c, an LD_PRELOAD shim
 * built here with the machine's C compiler). The transaction being committed never
 * finished and was never answered; SQLite drops it at the next open, as after any
 * crash. The start refused instead, saying SQLite "would silently drop the 1
 * transaction(s)" — the torn frame itself. Runs on both drivers (.ci/run repeats
 * test/crash on Node 24's node:sqlite). Requires the built dist.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeGatewayDir, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { CRASH_TOKEN, pluginDatabaseFile, postJson, queryPluginDb } from "./crash-support";
import { until } from "../helpers/until";

jest.setTimeout(180_000);

const SHIM_SOURCE = path.join(__dirname, "..", "fixtures", "torn-commit", "torn-commit.c");

const config = {
  hooks: { enabled: true, token: CRASH_TOKEN, rateLimit: { enabled: false } },
  agents: { runner: { kind: "echo", delayMs: 60_000 }, defaults: { heartbeat: { every: "off" } } },
};

const exited = (gw: GatewayProcess) => gw.child.exitCode !== null || gw.child.signalCode !== null;

describe("a torn last commit (real SIGKILL between a commit frame's header and its page)", () => {
  let dir: string;
  let gw: GatewayProcess | undefined;
  beforeEach(() => {
    dir = makeGatewayDir("gw-torn-");
  });
  afterEach(async () => {
    await gw?.kill9();
    gw = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("the next start keeps every accepted run and says what SQLite dropped (regression: the start was refused, 'SQLite would silently drop the 1 transaction(s)' — the unfinished one)", async () => {
    const shim = path.join(dir, "torn-commit.so");
    execFileSync("cc", ["-shared", "-fPIC", "-o", shim, SHIM_SOURCE, "-ldl"]);
    const arm = path.join(dir, "arm");
    gw = await startGateway({ dir, config, env: { LD_PRELOAD: shim, TORN_COMMIT_ARM: arm }, startTimeoutMs: 60_000 });
    const stateDir = gw.stateDir;
    const accepted: string[] = [];
    const post = async (i: number) => {
      const r = await postJson(gw!, "agent", { message: `run ${i}`, name: `R${i}`, deliver: false, wakeMode: "next-heartbeat" });
      expect(r.status).toBe(202);
      accepted.push(r.body!.runId as string);
    };
    for (let i = 0; i < 5; i++) await post(i);
    // Armed: the next commit frame written over an old frame of the log (one SQLite started over
    // after a checkpoint copied it, every 50 ms) kills the process after its header.
    fs.writeFileSync(arm, "");
    for (let i = 5; i < 400 && !exited(gw); i++) {
      try {
        await post(i);
      } catch {
        break; // the connection died with the process
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await until(() => exited(gw!), "the gateway to be killed inside a commit");
    expect(gw.child.signalCode).toBe("SIGKILL");
    const wal = `${pluginDatabaseFile(stateDir)}-wal`;
    gw = undefined;

    gw = await startGateway({ dir, config, startTimeoutMs: 60_000 });
    const started = gw.stderr();
    expect(started).toMatch(
      new RegExp(
        `the plugin database's write-ahead log ended in a write that never finished \\(frame \\d+ of \\d+ fails its checksum: the commit frame of a transaction being committed when the process or the machine stopped, and no committed transaction follows it\\); ` +
          `SQLite drops that unfinished transaction \\(\\d+ frame\\(s\\)\\) as after any crash and keeps every committed one`,
      ),
    );
    expect(started).toContain(wal);
    expect(started).toContain("plugin database quick_check: ok");
    const ids = new Set(queryPluginDb<{ id: string }>(stateDir, "SELECT id FROM runs").map((r) => r.id));
    expect(accepted.filter((id) => !ids.has(id))).toEqual([]);
  });
});
