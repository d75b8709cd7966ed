/**
 * Idle hook sessions removed (SPEC §7 "Bounded disk", issue 22 item 8). Regression:
 * 3,000 agent requests left 3,002 session files (728 MB) that were never removed.
 * Small numbers here; the measured figure is in docs/reliability.md.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSessionStore, sessionFileName } from "../../../src/gateway/sessions/session-store";
import { sessionLogFile } from "../../../src/gateway/sessions/session-log";
import { sweepIdleSessions } from "../../../src/gateway/sessions/session-sweep";

const DAY = 86_400_000;
const NOW = Date.parse("2030-06-01T00:00:00Z");

describe("sweeping idle hook sessions", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-sweep-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Sets the modification time of every file of a session. */
  const age = (key: string, daysAgo: number) => {
    const t = new Date(NOW - daysAgo * DAY);
    for (const f of [path.join(dir, sessionFileName(key)), path.join(dir, sessionLogFile(sessionFileName(key)))]) {
      if (fs.existsSync(f)) fs.utimesSync(f, t, t);
    }
  };

  it("regression: 3,002 hook session files were never removed — hook sessions idle longer than retentionDays go; fresh ones, the main session, other prefixes and sessions with pending events stay", () => {
    const store = createSessionStore({ dir });
    for (let i = 0; i < 30; i++) store.appendHistory(`hook:old-${i}`, [{ role: "user", content: "m".repeat(10_000) }]);
    store.appendHistory("hook:fresh", [{ role: "user", content: "recent" }]);
    store.appendHistory("crm:old", [{ role: "user", content: "another prefix" }]);
    store.enqueue("hook:pending", "not yet consumed");
    store.enqueue("main", "the main session");
    for (let i = 0; i < 30; i++) age(`hook:old-${i}`, 8);
    for (const key of ["crm:old", "hook:pending", "main"]) age(key, 30);
    age("hook:fresh", 6);

    const removed = sweepIdleSessions(store, { dir, retentionDays: 7, clock: () => NOW });

    expect(removed.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `hook:old-${i}`).sort());
    expect(store.keys().sort()).toEqual(["crm:old", "hook:fresh", "hook:pending", "main"]);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith("hook_old"))).toEqual([]);
    // A removed session used again starts afresh, in memory and on disk.
    store.appendHistory("hook:old-1", [{ role: "user", content: "again" }]);
    expect(createSessionStore({ dir }).get("hook:old-1").history).toEqual([{ role: "user", content: "again" }]);
  });

  it("a session whose snapshot cannot be read is left alone with a warning naming it (damaged state is reported where it is read)", () => {
    const store = createSessionStore({ dir });
    store.appendHistory("hook:ok", [{ role: "user", content: "x" }]);
    const damaged = path.join(dir, sessionFileName("hook:damaged"));
    fs.writeFileSync(damaged, "{ not json");
    age("hook:ok", 10);
    const old = new Date(NOW - 10 * DAY);
    fs.utimesSync(damaged, old, old);
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      error() {},
      warn: (m: string, meta?: Record<string, unknown>) => void warnings.push(`${m} ${String(meta?.session)}`),
    };
    expect(sweepIdleSessions(store, { dir, retentionDays: 7, clock: () => NOW, logger })).toEqual(["hook:ok"]);
    expect(fs.existsSync(damaged)).toBe(true);
    expect(warnings).toEqual([`an idle hook session was not removed ${path.basename(damaged, ".json")}`]);
  });
});
