import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSessionStore, sessionFileName } from "../../../src/gateway/sessions/session-store";
import { createJournal } from "../../../src/gateway/journal/journal";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "gw-sess-"));

describe("session store", () => {
  it("persists pending events, history and last route across instances", () => {
    const dir = tmp();
    let n = 0;
    const a = createSessionStore({ dir, newId: () => `e${++n}`, now: () => new Date("2026-01-01T00:00:00Z") });
    a.enqueue("main", "one", { source: "hook:wake" });
    a.enqueue("main", "two");
    a.appendHistory("hook:x", [{ role: "user", content: "hi" }, { role: "assistant", content: "ho" }]);
    a.setLastRoute("main", { channel: "bot_chat", to: "7" });
    a.setHeartbeatRequested("main", "hook:wake");

    const b = createSessionStore({ dir });
    expect(b.get("main").pending).toEqual([
      { id: "e1", ts: "2026-01-01T00:00:00.000Z", text: "one", meta: { source: "hook:wake" } },
      { id: "e2", ts: "2026-01-01T00:00:00.000Z", text: "two" },
    ]);
    expect(b.get("main").lastRoute).toEqual({ channel: "bot_chat", to: "7" });
    expect(b.get("main").heartbeatRequested).toBe("hook:wake");
    expect(b.get("hook:x").history).toEqual([{ role: "user", content: "hi" }, { role: "assistant", content: "ho" }]);
    expect(b.keys().sort()).toEqual(["hook:x", "main"]);
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
    s.appendHistory("k", [{ role: "user", content: "1" }, { role: "assistant", content: "2" }]);
    s.appendHistory("k", [{ role: "user", content: "3" }, { role: "assistant", content: "4" }]);
    expect(s.get("k").history.map((m) => m.content)).toEqual(["2", "3", "4"]);
  });

  it("names session files with a slug and a hash so any key is a safe file name", () => {
    expect(sessionFileName("hook:a/../b")).toMatch(/^hook_a_.._b-[0-9a-f]{12}\.json$/);
    expect(sessionFileName("x".repeat(300)).length).toBeLessThan(90);
    expect(sessionFileName("a:b")).not.toBe(sessionFileName("a_b"));
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
    const lines = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[1]).toEqual({ ts: "2026-02-03T04:05:06.000Z", type: "delivery", channel: "bot_chat", to: "1", text: "hi" });
  });
});
