/**
 * The gateway's state is private to its user (docs/security.md): a new state
 * dir, the plugin's data dir, the session dir are 0700; the database (and its
 * -wal/-shm), the session logs and the journal 0600, whatever the umask lets
 * through. An existing state dir open to others is reported, never changed.
 */
import fs from "node:fs";
import path from "node:path";
import { makeGatewayDir } from "../helpers/gateway-process";
import { gatewayPerTest, hooksConfig, postJson } from "./gateway-setup";

const modeOf = (p: string): number => fs.statSync(p).mode & 0o777;
const posixOnly = process.platform === "win32" ? it.skip : it;

describe("gateway e2e: state permissions", () => {
  const gateway = gatewayPerTest();

  posixOnly("a new state dir, its database, session log and journal were readable by other users (0755/0644): now 0700/0600 after one /wake", async () => {
    const gw = await gateway.start({ config: hooksConfig() });
    const res = await postJson(`${gw.baseUrl}/hooks/wake`, { text: "private payload" });
    expect(res.status).toBe(200);
    await gw.waitForJournal((e) => e.type === "heartbeat" && e.reason === "hook:wake");

    const dataDir = path.join(gw.stateDir, "data", "inbound-webhooks");
    const sessionsDir = path.join(gw.stateDir, "sessions");
    for (const dir of [gw.stateDir, path.join(gw.stateDir, "data"), dataDir, sessionsDir]) expect([dir, modeOf(dir)]).toEqual([dir, 0o700]);

    const db = path.join(dataDir, "inbound-webhooks.sqlite");
    const sessionFiles = fs.readdirSync(sessionsDir).map((f) => path.join(sessionsDir, f));
    expect(sessionFiles.length).toBeGreaterThan(0);
    const files = [db, `${db}-wal`, `${db}-shm`, path.join(gw.stateDir, "journal.jsonl"), ...sessionFiles].filter((f) => fs.existsSync(f));
    expect(files).toEqual(expect.arrayContaining([db, `${db}-wal`, path.join(gw.stateDir, "journal.jsonl")]));
    for (const f of files) expect([f, modeOf(f)]).toEqual([f, 0o600]);
    expect(gw.stdout() + gw.stderr()).not.toContain("open to other users");
  });

  posixOnly("an existing state dir open to other users (0755) was used silently: the start warns once with the chmod command and leaves the mode", async () => {
    const dir = makeGatewayDir("gw-perm-");
    const stateDir = path.join(dir, ".gateway");
    fs.mkdirSync(stateDir);
    fs.chmodSync(stateDir, 0o755);
    const gw = await gateway.start({ dir, config: hooksConfig() });
    const lines = (gw.stdout() + gw.stderr()).split("\n").filter((l) => l.includes("open to other users"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `the gateway state dir ${gw.stateDir} is open to other users (mode 0755): it holds stored payloads; run: chmod 700 ${gw.stateDir}`,
    );
    expect(modeOf(gw.stateDir)).toBe(0o755);
  });
});
