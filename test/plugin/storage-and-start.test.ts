/**
 * The plugin on its host (SPEC §7): a wake the host cannot store is a retryable
 * 503 storage_unavailable over HTTP with nothing queued; accepted runs are
 * resumed only when the host says the start can no longer fail (`ready()`, host
 * API 1.2), and still in `start()` on a host that predates it.
 */
import { wrappedContent } from "../helpers/wrapped";
import request from "supertest";
import { activate } from "../../src/plugin/index";
import { openPluginDatabase } from "../../src/store/database";
import { createSqliteRunStore } from "../../src/store/run-store";
import { createFakeHost, type FakeHost } from "../helpers/fake-host";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { actionSource, agentAction, recordingLogger, runRecord, tempDir } from "../helpers/temp-dir";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };

describe("plugin: a wake the host cannot store", () => {
  let plugin: PluginApp;
  afterEach(async () => {
    await plugin.close();
  });

  it("answers 503 storage_unavailable with Retry-After, queues nothing, requests no heartbeat, and logs the cause but never the text", async () => {
    plugin = await startPluginApp({ hooks: { rateLimit: { enabled: false } } });
    plugin.host.api.runtime.sessions.enqueueSystemEvent = () => {
      throw Object.assign(new Error("cannot append to sessions/main-0a1b.log.jsonl: ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    };
    const res = await request(plugin.app).post("/hooks/wake").set(AUTH).send({ text: "secret doorbell text" });
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("30");
    expect(res.body).toEqual({
      ok: false,
      code: "storage_unavailable",
      error: "The request could not be stored (the gateway's storage failed, e.g. a full disk), so nothing of it took effect; retry later.",
    });
    expect(plugin.host.systemEvents).toEqual([]);
    expect(plugin.host.heartbeats).toEqual([]);
    const logged = plugin.host.logs.find((l) => l.message === "wake not accepted: the host could not store the system event");
    expect(logged?.meta).toMatchObject({ code: "storage_unavailable", cause: "ENOSPC" });
    expect(JSON.stringify(plugin.host.logs)).not.toContain("secret doorbell text");
  });
});

describe("plugin: when accepted runs resume", () => {
  let tmp: ReturnType<typeof tempDir>;
  let host: FakeHost;
  beforeEach(() => {
    tmp = tempDir();
    const log = recordingLogger();
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    const store = createSqliteRunStore(database);
    store.insert(
      runRecord({
        id: "q1",
        seq: store.nextSeq(),
        action: agentAction({ message: "queued before", deliver: false, wakeMode: "next-heartbeat" }),
        source: actionSource(),
      }),
    );
    store.insert(
      runRecord({ id: "r1", seq: store.nextSeq(), status: "running", action: agentAction({ name: "Crashed", sessionKey: "hook:r" }), source: actionSource() }),
    );
    database.close();
    log.close();
  });
  afterEach(async () => {
    for (const s of [...host.services].reverse()) await s.stop();
    tmp.remove();
  });

  const hostWith = (version: string) => {
    host = createFakeHost({ stateDir: tmp.dir, configDir: tmp.dir, config: { hooks: { enabled: true, token: TEST_TOKEN } } });
    host.api = { ...host.api, hostApiVersion: version };
    activate(host.api);
    return host;
  };
  const runsService = () => host.services.find((s) => s.id === "inbound-webhooks.runs")!;

  it("host API 1.2: start() touches no run; ready() reports the interrupted run and runs the queued one", async () => {
    hostWith("1.2.0");
    await runsService().start();
    await new Promise((r) => setImmediate(r));
    expect(host.turns).toEqual([]);
    expect(host.systemEvents).toEqual([]);
    await runsService().ready!();
    await host.waitFor(() => host.turns.length === 1 && host.systemEvents.length === 2, 5000, "the queued run and both summaries");
    expect(host.systemEvents.map((e) => wrappedContent(e.text).split(":")[0])).toEqual(["Hook Crashed (interrupted)", "Hook CI"]);
  });

  it("host API 1.1 (never calls ready): start() resumes runs as before", async () => {
    hostWith("1.1.0");
    await runsService().start();
    await host.waitFor(() => host.turns.length === 1, 5000, "the queued run");
    expect(host.turns[0]!.message).toBe("queued before");
  });
});
