import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSessionStore, MAX_RECENT_DEDUPE_KEYS, sessionFileName } from "../../../src/gateway/sessions/session-store";
import { sessionLogFile } from "../../../src/gateway/sessions/session-log";
import { createJournal } from "../../../src/gateway/journal/journal";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "gw-sess-"));

describe("session store", () => {
  it("persists pending events, history and last route across instances", () => {
    const dir = tmp();
    let n = 0;
    const a = createSessionStore({ dir, newId: () => `e${++n}`, now: () => new Date("2026-01-01T00:00:00Z") });
    a.enqueue("main", "one", { source: "hook:wake" });
    a.enqueue("main", "two");
    a.appendHistory("hook:x", [
      { role: "user", content: "hi" },
      { role: "assistant", content: "ho" },
    ]);
    a.setLastRoute("main", { channel: "bot_chat", to: "7" });
    a.setHeartbeatRequested("main", "hook:wake");

    const b = createSessionStore({ dir });
    expect(b.get("main").pending).toEqual([
      { id: "e1", ts: "2026-01-01T00:00:00.000Z", text: "one", meta: { source: "hook:wake" } },
      { id: "e2", ts: "2026-01-01T00:00:00.000Z", text: "two" },
    ]);
    expect(b.get("main").lastRoute).toEqual({ channel: "bot_chat", to: "7" });
    expect(b.get("main").heartbeatRequested).toBe("hook:wake");
    expect(b.get("hook:x").history).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "ho" },
    ]);
    expect(b.keys().sort()).toEqual(["hook:x", "main"]);
  });

  it("recognises a dedupe key while its event is pending, after it is consumed, and across a restart", () => {
    const dir = tmp();
    let n = 0;
    const s = createSessionStore({ dir, newId: () => `e${++n}` });
    s.enqueue("main", "summary of run 1", { dedupeKey: "run-summary:1" });
    expect(s.hasDedupeKey("main", "run-summary:1")).toBe(true);
    expect(s.hasDedupeKey("main", "run-summary:2")).toBe(false);
    expect(s.hasDedupeKey("hook:other", "run-summary:1")).toBe(false);
    s.consume("main", ["e1"]);
    expect(s.get("main").pending).toEqual([]);
    expect(s.hasDedupeKey("main", "run-summary:1")).toBe(true);
    expect(createSessionStore({ dir }).hasDedupeKey("main", "run-summary:1")).toBe(true);
  });

  it("remembers at most MAX_RECENT_DEDUPE_KEYS consumed keys, the most recent ones", () => {
    let n = 0;
    const s = createSessionStore({ dir: tmp(), newId: () => `e${++n}` });
    for (let i = 0; i <= MAX_RECENT_DEDUPE_KEYS; i++) s.enqueue("main", `t${i}`, { dedupeKey: `k${i}` });
    s.consume(
      "main",
      s.get("main").pending.map((e) => e.id),
    );
    expect(s.hasDedupeKey("main", "k0")).toBe(false);
    expect(s.hasDedupeKey("main", "k1")).toBe(true);
    expect(s.hasDedupeKey("main", `k${MAX_RECENT_DEDUPE_KEYS}`)).toBe(true);
  });

  it("consumes exactly the given events and keeps later ones", () => {
    let n = 0;
    const s = createSessionStore({ dir: tmp(), newId: () => `e${++n}` });
    s.enqueue("main", "a");
    s.enqueue("main", "b");
    s.enqueue("main", "c");
    expect(s.consume("main", ["e1", "e2", "nope"])).toBe(2);
    expect(s.get("main").pending.map((e) => e.text)).toEqual(["c"]);
  });

  it("calls onCreated once per new session", () => {
    const created: string[] = [];
    const dir = tmp();
    const s = createSessionStore({ dir, onCreated: (k) => created.push(k) });
    s.get("main");
    s.enqueue("main", "x");
    s.get("hook:1");
    expect(created).toEqual(["main", "hook:1"]);
    createSessionStore({ dir, onCreated: (k) => created.push(k) }).get("main");
    expect(created).toEqual(["main", "hook:1"]);
  });

  it("keeps only the most recent history messages", () => {
    const s = createSessionStore({ dir: tmp(), maxHistory: 3 });
    s.appendHistory("k", [
      { role: "user", content: "1" },
      { role: "assistant", content: "2" },
    ]);
    s.appendHistory("k", [
      { role: "user", content: "3" },
      { role: "assistant", content: "4" },
    ]);
    expect(s.get("k").history.map((m) => m.content)).toEqual(["2", "3", "4"]);
  });

  it("names session files with a slug and a hash so any key is a safe file name", () => {
    expect(sessionFileName("hook:a/../b")).toMatch(/^hook_a_.._b-[0-9a-f]{12}\.json$/);
    expect(sessionFileName("x".repeat(300)).length).toBeLessThan(90);
    expect(sessionFileName("a:b")).not.toBe(sessionFileName("a_b"));
  });
});

describe("session store: append-only log and recovery", () => {
  const ids = () => {
    let n = 0;
    return () => `e${++n}`;
  };
  const logOf = (dir: string, key: string) => path.join(dir, sessionLogFile(sessionFileName(key)));

  it("keeps every pending event, in order, after many enqueues and a restart", () => {
    const dir = tmp();
    const a = createSessionStore({ dir, newId: ids(), logSlack: 50 });
    for (let i = 1; i <= 500; i++) a.enqueue("main", `event ${i}`, { source: "hook:wake" });

    const b = createSessionStore({ dir });
    const pending = b.get("main").pending;
    expect(pending).toHaveLength(500);
    expect(pending.map((e) => e.id)).toEqual(Array.from({ length: 500 }, (_v, i) => `e${i + 1}`));
    expect(pending[499]).toMatchObject({ text: "event 500", meta: { source: "hook:wake" } });
  });

  it("a new session is one create line in its log (no snapshot file is written); each enqueue appends one line", () => {
    const dir = tmp();
    const s = createSessionStore({ dir, newId: ids(), now: () => new Date("2026-01-01T00:00:00Z") });
    s.get("main");
    s.enqueue("main", "one");
    s.enqueue("main", "two");
    expect(fs.existsSync(path.join(dir, sessionFileName("main")))).toBe(false);
    const lines = fs.readFileSync(logOf(dir, "main"), "utf8").split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe("");
    expect(JSON.parse(lines[0]!)).toEqual({ s: 1, op: "create", key: "main", createdAt: "2026-01-01T00:00:00.000Z" });
    expect(JSON.parse(lines[1]!)).toMatchObject({ s: 2, op: "enqueue", ev: { id: "e1", text: "one" } });
    expect(JSON.parse(lines[2]!)).toMatchObject({ s: 3, op: "enqueue", ev: { id: "e2", text: "two" } });
    const reopened = createSessionStore({ dir });
    expect(reopened.get("main")).toMatchObject({ key: "main", createdAt: "2026-01-01T00:00:00.000Z", pending: [{ id: "e1" }, { id: "e2" }] });
    expect(reopened.keys()).toEqual(["main"]);
  });

  it("keeps only the unconsumed events after consume and a restart", () => {
    const dir = tmp();
    const a = createSessionStore({ dir, newId: ids() });
    for (const t of ["a", "b", "c", "d"]) a.enqueue("main", t);
    expect(a.consume("main", ["e1", "e3"])).toBe(2);
    a.enqueue("main", "e");

    const b = createSessionStore({ dir });
    expect(b.get("main").pending.map((e) => `${e.id}:${e.text}`)).toEqual(["e2:b", "e4:d", "e5:e"]);
    expect(b.consume("main", ["e2", "e4", "e5"])).toBe(3);
    expect(createSessionStore({ dir }).get("main").pending).toEqual([]);
  });

  it("rewrites the snapshot and empties the log once consumed entries outweigh the live ones", () => {
    const dir = tmp();
    const a = createSessionStore({ dir, newId: ids(), logSlack: 5 });
    for (let i = 1; i <= 8; i++) a.enqueue("main", `t${i}`);
    expect(fs.readFileSync(logOf(dir, "main"), "utf8").split("\n")).toHaveLength(10); // the create line, 8 enqueues, the final newline
    expect(a.consume("main", ["e1", "e2", "e3", "e4", "e5", "e6", "e7"])).toBe(7);
    expect(fs.readFileSync(logOf(dir, "main"), "utf8")).toBe("");
    const snap = JSON.parse(fs.readFileSync(path.join(dir, sessionFileName("main")), "utf8")) as { seq: number; pending: { id: string }[] };
    expect(snap.seq).toBe(10); // create, 8 enqueues, 1 consume
    expect(snap.pending.map((e) => e.id)).toEqual(["e8"]);

    a.enqueue("main", "t9");
    const b = createSessionStore({ dir });
    expect(b.get("main").pending.map((e) => e.text)).toEqual(["t8", "t9"]);
  });

  (process.platform === "win32" ? it.skip : it)("a session dir, log and snapshot were readable by other users (0755/0644): now 0700/0600", () => {
    const dir = path.join(tmp(), "sessions");
    const a = createSessionStore({ dir, newId: ids(), logSlack: 5 });
    for (let i = 1; i <= 8; i++) a.enqueue("main", `t${i}`);
    a.consume("main", ["e1", "e2", "e3", "e4", "e5", "e6", "e7"]); // compaction writes the snapshot
    const mode = (p: string) => fs.statSync(p).mode & 0o777;
    expect(mode(dir)).toBe(0o700);
    expect(mode(logOf(dir, "main"))).toBe(0o600);
    expect(mode(path.join(dir, sessionFileName("main")))).toBe(0o600);
  });

  it("ignores a torn trailing line and appends cleanly after it", () => {
    const dir = tmp();
    const a = createSessionStore({ dir, newId: ids() });
    a.enqueue("main", "kept one");
    a.enqueue("main", "kept two");
    fs.appendFileSync(logOf(dir, "main"), '{"s":3,"op":"enqueue","ev":{"id":"e3","ts":"2026-01-01T00:00:0');

    const b = createSessionStore({ dir, newId: () => "after" });
    expect(b.get("main").pending.map((e) => e.text)).toEqual(["kept one", "kept two"]);
    b.enqueue("main", "after restart");

    const c = createSessionStore({ dir });
    expect(c.get("main").pending.map((e) => `${e.id}:${e.text}`)).toEqual(["e1:kept one", "e2:kept two", "after:after restart"]);
  });

  it("skips log lines already folded into the snapshot (a compaction interrupted before the log was emptied)", () => {
    const dir = tmp();
    const a = createSessionStore({ dir, newId: ids(), logSlack: 0 });
    a.enqueue("main", "x");
    const stale = fs.readFileSync(logOf(dir, "main"), "utf8");
    expect(a.consume("main", ["e1"])).toBe(1);
    expect(fs.readFileSync(logOf(dir, "main"), "utf8")).toBe("");
    fs.writeFileSync(logOf(dir, "main"), stale + stale);

    expect(createSessionStore({ dir }).get("main").pending).toEqual([]);
  });

  it("loads a session file written before the log existed", () => {
    const dir = tmp();
    const legacy = {
      key: "main",
      createdAt: "2026-01-01T00:00:00.000Z",
      pending: [{ id: "old1", ts: "2026-01-01T00:00:00.000Z", text: "from v1" }],
      history: [],
      lastRoute: { channel: "bot_chat", to: "7" },
    };
    fs.writeFileSync(path.join(dir, sessionFileName("main")), JSON.stringify(legacy));
    const a = createSessionStore({ dir, newId: () => "new1" });
    a.enqueue("main", "after upgrade");
    const b = createSessionStore({ dir });
    expect(b.get("main").pending.map((e) => e.id)).toEqual(["old1", "new1"]);
    expect(b.get("main").lastRoute).toEqual({ channel: "bot_chat", to: "7" });
  });

  it("replays history, route and heartbeat changes from the log", () => {
    const dir = tmp();
    const a = createSessionStore({ dir, maxHistory: 3 });
    a.appendHistory("k", [
      { role: "user", content: "1" },
      { role: "assistant", content: "2" },
    ]);
    a.appendHistory("k", [
      { role: "user", content: "3" },
      { role: "assistant", content: "4" },
    ]);
    a.setLastRoute("k", { channel: "phone_chat" });
    a.setHeartbeatRequested("k", "hook:wake");
    a.setHeartbeatRequested("k", undefined);
    const b = createSessionStore({ dir, maxHistory: 3 }).get("k");
    expect(b.history.map((m) => m.content)).toEqual(["2", "3", "4"]);
    expect(b.lastRoute).toEqual({ channel: "phone_chat" });
    expect(b.heartbeatRequested).toBeUndefined();
  });
});

describe("journal", () => {
  it("appends one JSON line per effect, synchronously, with ts and type", () => {
    const file = path.join(tmp(), "j", "journal.jsonl");
    const j = createJournal({ file, now: () => new Date("2026-02-03T04:05:06Z") });
    j.append({ type: "heartbeat", reason: "interval", pending: 0 });
    expect(fs.readFileSync(file, "utf8")).toBe('{"ts":"2026-02-03T04:05:06.000Z","type":"heartbeat","reason":"interval","pending":0}\n');
    j.append({ type: "delivery", channel: "bot_chat", to: "1", text: "hi" });
    j.close();
    const lines = fs
      .readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[1]).toEqual({ ts: "2026-02-03T04:05:06.000Z", type: "delivery", channel: "bot_chat", to: "1", text: "hi" });
  });
});

describe('session store: "os" durability (sync)', () => {
  it("fdatasyncs each write of a log, and fsyncs a new snapshot and its directory before the log it replaces is emptied", () => {
    const dir = tmp();
    const calls: string[] = [];
    const datasync = jest.spyOn(fs, "fdatasyncSync").mockImplementation(() => void calls.push("fdatasync"));
    const fsync = jest.spyOn(fs, "fsyncSync").mockImplementation(() => void calls.push("fsync"));
    const truncate = jest.spyOn(fs, "truncateSync");
    truncate.mockImplementation(((file: fs.PathLike, len?: number) => {
      calls.push("truncate");
      truncate.mockRestore();
      fs.truncateSync(file, len);
    }) as typeof fs.truncateSync);
    try {
      let n = 0;
      const s = createSessionStore({ dir, sync: true, logSlack: 1, newId: () => `e${++n}` });
      s.enqueue("main", "a");
      expect(calls).toEqual(["fdatasync", "fdatasync"]); // the create line, the enqueue
      calls.length = 0;
      s.consume("main", ["e1"]); // dead entries now outweigh the live ones: compaction
      expect(calls).toEqual(["fdatasync", "fsync", "fsync", "truncate"]);
    } finally {
      datasync.mockRestore();
      fsync.mockRestore();
      truncate.mockRestore();
    }
  });
});
