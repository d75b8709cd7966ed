/**
 * Regression (issue 34, the plugin inside OpenClaw over a Postgres store): the consumer handed each wake a receiver
 * stored to the host's main session and then deleted it from Postgres; OpenClaw keeps pending system events in memory
 * only (`sessions.eventsInMemory`), so a wake answered 200 was lost when OpenClaw stopped after the hand and before a
 * turn carried it. Now such a wake goes through the main-session outbox over a local SQLite file in the plugin's state
 * dir: kept until a turn carried it, handed again at the next start — and a wake kept locally whose Postgres ack never
 * happened (a stop in between) is acked at the start, not handed a second time after a turn took it.
 *
 * Each "OpenClaw start" is a fresh fake host (its memory empty) over the same state dir and database.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describePostgres } from "../helpers/postgres";
import { until } from "../helpers/until";
import { createFakeHost, type FakeHost } from "../helpers/fake-host";
import { TEST_TOKEN } from "../helpers/plugin-app";
import { pgFixture } from "../store/postgres/pg-fixture";
import { activate } from "../../src/plugin/index";
import { openPluginDatabase } from "../../src/store/database";
import { createSqliteSessionEventStore } from "../../src/store/session-event-store";
import type { SystemEventMeta } from "../../src/host-contract/host-api";
import type { PostgresStore } from "../../src/store/postgres/pg-store";

describePostgres("a Postgres wake on a host that keeps its events in memory", () => {
  const fx = pgFixture();
  let stateDir: string;
  const hosts: FakeHost[] = [];
  beforeEach(() => {
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-pgwake-"));
  });
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stopServices().catch(() => undefined);
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  /** One start of OpenClaw with the plugin: a host whose memory is empty, counting every hand by dedupe key. */
  async function openclaw(url: string): Promise<FakeHost & { handed: Map<string, number> }> {
    const host = createFakeHost({ config: { hooks: { enabled: true, token: TEST_TOKEN, store: { kind: "postgres", url } } }, stateDir, configDir: stateDir });
    const sessions = host.api.runtime.sessions as { eventsInMemory?: boolean; enqueueSystemEvent: (k: string, t: string, m?: SystemEventMeta) => unknown };
    sessions.eventsInMemory = true;
    const handed = new Map<string, number>();
    const enqueue = sessions.enqueueSystemEvent.bind(sessions);
    sessions.enqueueSystemEvent = (k, t, m) => {
      const key = String(m?.dedupeKey);
      handed.set(key, (handed.get(key) ?? 0) + 1);
      return enqueue(k, t, m);
    };
    activate(host.api);
    hosts.push(host);
    await host.startServices();
    return Object.assign(host, { handed });
  }
  const stop = async (host: FakeHost) => {
    hosts.splice(hosts.indexOf(host), 1);
    await host.stopServices();
  };
  /** The events the plugin's local outbox keeps (read beside the running plugin). */
  const kept = (): string[] => {
    const db = openPluginDatabase({ dir: stateDir, logger: fx.logs.logger, backgroundCheckpoints: false });
    try {
      return createSqliteSessionEventStore(db)
        .pending()
        .map((e) => e.dedupeKey);
    } finally {
      db.close();
    }
  };
  const storeWake = (store: PostgresStore, id: string, text: string) =>
    store.accept.stage({ wakes: [{ id, event: { text, mode: "now", reason: "hook:wake", meta: { kind: "wake" } }, createdAt: Date.now() }] });

  it("regression: a wake handed to OpenClaw's memory and deleted from Postgres was lost by a stop before a turn; it reaches the main session after the restart, once", async () => {
    const store = await fx.open();
    const id = randomUUID();
    const first = await openclaw(store.url);
    await storeWake(store, id, "deploy 41 finished");
    await until(() => first.systemEvents.some((e) => e.meta?.dedupeKey === `wake:${id}`), "the wake in the host's memory", { timeoutMs: 10_000 });
    await until(async () => (await store.wakes.pending()) === 0, "the wake acked in Postgres", { timeoutMs: 10_000 });
    // OpenClaw stops before any turn carried it: its memory is gone.
    await stop(first);

    const second = await openclaw(store.url);
    expect(second.systemEvents.map((e) => [e.sessionKey, e.text, e.meta?.dedupeKey])).toEqual([["main", "deploy 41 finished", `wake:${id}`]]);
    expect(second.heartbeats.length).toBeGreaterThan(0);
    // A turn carries it: forgotten, and a third start hands nothing.
    second.events.emit("turn", { sessionKey: "main", input: "System: deploy 41 finished" });
    await until(() => kept().length === 0, "the wake forgotten once a turn carried it");
    await stop(second);
    const third = await openclaw(store.url);
    expect(third.systemEvents).toEqual([]);
  });

  it("regression: a wake kept locally whose Postgres ack a stop cut off is acked at the start, not handed a second time once a turn took it and its lease expired", async () => {
    const store = await fx.open();
    const id = randomUUID();
    await storeWake(store, id, "backup done");
    // The stopped consumer's state: the wake leased to it in Postgres, committed in its outbox, never acked.
    await store.wakes.take({ owner: "stopped", leaseMs: 1500, limit: 1 });
    const db = openPluginDatabase({ dir: stateDir, logger: fx.logs.logger, backgroundCheckpoints: false });
    const meta = { kind: "wake", dedupeKey: `wake:${id}` };
    await createSqliteSessionEventStore(db).stage({ sessionKey: "main", dedupeKey: `wake:${id}`, text: "backup done", meta, createdAt: Date.now() });
    db.close();

    const host = await openclaw(store.url);
    expect(host.handed.get(`wake:${id}`)).toBe(1);
    host.events.emit("turn", { sessionKey: "main", input: "System: backup done" });
    await until(() => kept().length === 0, "the wake forgotten once a turn carried it");
    // Acked at the start (taken again once the stopped consumer's lease expired, it would be handed before its ack).
    await until(async () => (await store.wakes.pending()) === 0, "the wake gone from Postgres", { timeoutMs: 10_000 });
    expect(host.handed.get(`wake:${id}`)).toBe(1);
    expect(kept()).toEqual([]);
  });
});
