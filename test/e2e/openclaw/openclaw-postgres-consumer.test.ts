/**
 * The plugin inside OpenClaw as the consumer over Postgres (SPEC §16, issue 34's "one consumer (the embedded
 * gateway; then the plugin inside the pinned OpenClaw)", docs/scale.md): a throwaway Postgres, one embedded
 * gateway as a receiver on it (`gateway start --role receiver`: it stores and answers, and runs no agent turn),
 * and a real `openclaw gateway run` whose plugin section names the same store, so the plugin inside OpenClaw
 * claims the runs and runs them with OpenClaw's agent (the fake model), and hands the stored wakes to OpenClaw's
 * main session.
 *
 * Every delivery goes to the receiver: keyed `/hooks/agent` deliveries over a few session keys (each session's
 * sent one after another, the sessions side by side), a fifth of them sent again with the same key, and a couple
 * of `/hooks/wake`s. Every 2xx has its run in Postgres, every retry the first answer's run id; every run ends
 * `succeeded` with the model's reply after one model call, each session's runs one at a time and in acceptance
 * order; each wake reaches the model once. Then a wake handed to OpenClaw (gone from Postgres) before a stop of
 * OpenClaw that no turn preceded reaches the model after the restart, once (issue 34: it was lost).
 *
 * Skipped (with a printed notice) where Postgres is missing (describePostgres) or the pinned Node 24 and
 * openclaw are not cached (as openclaw-gateway.test.ts); with CI=true either fails instead.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { until } from "../../helpers/until";
import { packedTarball } from "../../helpers/packed-tarball";
import { describePostgres, startPostgres, type PostgresCluster } from "../../helpers/postgres";
import { startGateway, type GatewayProcess } from "../../helpers/gateway-process";
import { hooksConfig, HOOK_TOKEN } from "../gateway-setup";
import { startFakeModel, type FakeModel } from "./fake-model";
import { findPrerequisites, freePort, getJson, OpenClawHost } from "./openclaw-host";

const GATEWAY_TOKEN = "e2e-pg-consumer-gateway-token-0123456789";
/** A start of OpenClaw takes 2–5 minutes on a loaded two-core machine. */
const SLOW = { timeoutMs: 900_000, intervalMs: 500 };
const SESSIONS = 3;
const PER_SESSION = 10;
/** Every this many deliveries of a session one is sent again with its key (a fifth). */
const RETRY_EVERY = 5;
const WAKES = 2;
/** The default lease: OpenClaw can hold its main thread for seconds, and a lease renewed late would be taken over. */
const LEASE_SECONDS = 30;

const prereq = findPrerequisites();
const missing = "missing" in prereq ? prereq.missing : undefined;
const inCi = process.env.CI === "true";
if (missing && !inCi) process.stderr.write(`\nOpenClaw Postgres consumer e2e suite skipped: ${missing}.\n\n`);

function passed(name: string): void {
  const marker = process.env.OPENCLAW_E2E_MARKER;
  if (marker) fs.appendFileSync(marker, `ok postgres-consumer: ${name}\n`);
}

interface Answer {
  status: number;
  runId?: string;
  replayed: boolean;
}

async function post(base: string, p: string, body: unknown, key?: string): Promise<Answer> {
  const res = await fetch(`${base}${p}`, {
    method: "POST",
    headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
    body: JSON.stringify(body),
  });
  const parsed = (await res.json().catch(() => ({}))) as { runId?: string };
  return { status: res.status, ...(parsed.runId ? { runId: parsed.runId } : {}), replayed: res.headers.get("idempotent-replayed") === "true" };
}

describePostgres("the plugin inside OpenClaw consumes over Postgres", () => {
  (missing && !inCi ? describe.skip : describe)("a receiver and the plugin inside OpenClaw over one Postgres (openclaw 2026.9.6, Node 24)", () => {
    let pg: PostgresCluster;
    let db: string;
    let receiver: GatewayProcess;
    let host: OpenClawHost;
    let model: FakeModel;
    let dir: string;
    const sql = async (q: string) => (await pg.psql(q, db)).trim();
    const detail = () =>
      `--- OpenClaw output (tail) ---\n${host.log().slice(-6000)}\n--- receiver stderr (tail) ---\n${receiver?.stderr().slice(-2000)}\n--- model requests: ${model.requests.length}`;
    const pluginServes = (what: string) => host.pluginServes(what, { ...SLOW, detail });

    beforeAll(async () => {
      if (missing) throw new Error(`CI=true and a prerequisite of the OpenClaw suite is missing: ${missing}`);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-openclaw-pg-"));
      pg = await startPostgres();
      const url = await pg.createDatabase();
      db = new URL(url).pathname.slice(1);
      const store = { kind: "postgres", url: { env: "PG_URL" }, leaseSeconds: LEASE_SECONDS };
      receiver = await startGateway({
        config: hooksConfig({ hooks: { store, rateLimit: { enabled: false } } }),
        env: { PG_URL: url },
        args: ["--role", "receiver"],
        startTimeoutMs: 60_000,
      });
      model = await startFakeModel();
      // The plugin reads `{ env }` from OpenClaw's environment (the plugin runs in OpenClaw's process).
      host = new OpenClawHost(prereq as { node24: string; openclaw: string }, dir, await freePort(), { PG_URL: url });
      host.writeConfig({
        gateway: { mode: "local", port: host.port, bind: "loopback", auth: { mode: "token", token: GATEWAY_TOKEN } },
        models: { providers: { fake: { api: "openai-completions", baseUrl: model.baseUrl, apiKey: "fake-key", models: [{ id: "fake-1", name: "Fake 1" }] } } },
        agents: { defaults: { model: { primary: "fake/fake-1" } } },
      });
      const install = await host.cli(["plugins", "install", `npm-pack:${packedTarball(dir)}`, "--force", "--accept-capabilities"]);
      if (install.status !== 0) throw new Error(`openclaw plugins install failed (${install.status}):\n${install.stdout}\n${install.stderr}`);
      const config = host.readConfig() as { plugins: { entries: Record<string, Record<string, unknown>> } };
      config.plugins.entries["inbound-webhooks"] = {
        ...config.plugins.entries["inbound-webhooks"],
        enabled: true,
        hooks: { allowConversationAccess: true },
        config: { token: HOOK_TOKEN, store },
      };
      host.writeConfig(config);
      host.start();
      await pluginServes("the plugin's /webhooks route to serve inside OpenClaw");
    }, 1_500_000);

    afterAll(async () => {
      await host?.stop();
      await receiver?.stop();
      await model?.close();
      await pg?.cleanup();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    }, 120_000);

    it(`${SESSIONS * PER_SESSION} keyed deliveries over ${SESSIONS} sessions (a fifth retried) and ${WAKES} wakes to the receiver: every 2xx has its run, retries the same run, every run succeeds in OpenClaw once with the model's reply, each session in order, each wake reaches the model once`, async () => {
      const tag = crypto.randomBytes(4).toString("hex");
      type Delivery = { key: string; message: string; sessionKey: string; first?: Answer; retry?: Answer };
      const sessions: Delivery[][] = Array.from({ length: SESSIONS }, (_, s) =>
        Array.from({ length: PER_SESSION }, (_, i) => ({
          key: `pgclaw-${tag}-${s}-${i}`,
          message: `pgclaw-run-${tag}-${s}-${i}`,
          sessionKey: `hook:pgclaw-${tag}-${s}`,
        })),
      );
      const wakes = Array.from({ length: WAKES }, (_, w) => ({ text: `pgclaw-wake-${tag}-${w}`, status: 0 }));
      const send = (d: Delivery) => post(receiver.baseUrl, "/hooks/agent", { message: d.message, sessionKey: d.sessionKey }, d.key);

      const started = Date.now();
      // Each session's deliveries one after another (each answered before the next is sent), the sessions side by side.
      const sender = async (list: Delivery[], s: number): Promise<void> => {
        for (const [i, d] of list.entries()) {
          d.first = await send(d);
          if (i % RETRY_EVERY === RETRY_EVERY - 1) d.retry = await send(d);
          if (s < WAKES && i === PER_SESSION / 2)
            wakes[s]!.status = (await post(receiver.baseUrl, "/hooks/wake", { text: wakes[s]!.text, mode: "now" })).status;
        }
      };
      await Promise.all(sessions.map(sender));
      const sentSeconds = (Date.now() - started) / 1000;
      const all = sessions.flat();
      const retried = all.filter((d) => d.retry);

      // Every delivery answered 202, every wake 200; every retry the first answer's run, replayed.
      expect(all.filter((d) => d.first!.status !== 202 || !d.first!.runId)).toEqual([]);
      expect(wakes.filter((w) => w.status !== 200)).toEqual([]);
      expect(retried.map((d) => ({ status: d.retry!.status, runId: d.retry!.runId, replayed: d.retry!.replayed }))).toEqual(
        retried.map((d) => ({ status: 202, runId: d.first!.runId, replayed: true })),
      );
      // Every 2xx has its run in Postgres, and there is no other.
      const ids = all.map((d) => d.first!.runId!);
      const stored = (await sql("SELECT id FROM inbound_webhooks.runs ORDER BY seq")).split("\n");
      expect(new Set(stored)).toEqual(new Set(ids));
      expect(stored).toHaveLength(all.length);

      // The plugin inside OpenClaw drains them.
      let statuses = "";
      const byStatus = async () =>
        (statuses = (await sql("SELECT status, count(*) FROM inbound_webhooks.runs GROUP BY status ORDER BY status")).replace(/\n/g, ", "));
      await until(async () => !/queued|running/.test(await byStatus()), "every run to end", {
        ...SLOW,
        detail: () => `runs by status: ${statuses}\n${detail()}`,
      });
      const drainSeconds = (Date.now() - started) / 1000;
      expect(statuses).toBe(`succeeded|${all.length}`);
      expect(await sql("SELECT count(*) FROM inbound_webhooks.runs WHERE attempts <> 1")).toBe("0");
      // Each run's answer inside OpenClaw (the plugin's route, reading Postgres): succeeded with the fake model's reply.
      for (const id of ids) {
        const run = (await getJson(`${host.baseUrl}/webhooks/runs/${id}`, HOOK_TOKEN)).run as { status: string; summary: string };
        expect({ id, status: run?.status, summary: run?.summary }).toEqual({ id, status: "succeeded", summary: expect.stringContaining("fake reply") });
      }

      // One model call per run: its own turn is the one chat that carries its message and none of a later run of its
      // session (a later run's turn has the earlier ones in its session's history).
      const ownTurns = (list: Delivery[], i: number) =>
        model.chatsContaining(list[i]!.message).filter((q) => !list.slice(i + 1).some((later) => q.body.includes(later.message)));
      for (const list of sessions)
        expect(list.map((d, i) => ({ run: d.message, calls: ownTurns(list, i).length }))).toEqual(list.map((d) => ({ run: d.message, calls: 1 })));

      // Each session's runs in acceptance order (seq is drawn at the accept; each was answered before the next was sent),
      // one at a time: every run started after the one before it in its session finished.
      for (const list of sessions) {
        const bySeq = (await sql(`SELECT id FROM inbound_webhooks.runs WHERE session_key = '${list[0]!.sessionKey}' ORDER BY seq`)).split("\n");
        expect(bySeq).toEqual(list.map((d) => d.first!.runId));
      }
      expect(
        await sql(
          `SELECT count(*) FROM (SELECT started_at, lag(started_at) OVER w AS prev_started, lag(finished_at) OVER w AS prev_finished
             FROM inbound_webhooks.runs WINDOW w AS (PARTITION BY session_key ORDER BY seq)) o
           WHERE started_at::timestamptz < prev_started::timestamptz OR started_at::timestamptz < prev_finished::timestamptz`,
        ),
      ).toBe("0");

      // Each wake the receiver stored reaches OpenClaw's main session: one event (one wrapper id) in the model's prompts,
      // each prompt carrying it once (a later turn of the main session repeats it in its history, with the same id).
      for (const w of wakes) await until(() => model.chatsContaining(w.text).length > 0, `wake ${w.text} to reach the model`, { ...SLOW, detail });
      const wakeSeconds = (Date.now() - started) / 1000;
      for (const w of wakes) {
        const chats = model.chatsContaining(w.text);
        const wrapperIds = new Set(chats.flatMap((q) => wrapperIdsAround(q.body, w.text)));
        const copiesPerPrompt = Math.max(...chats.map((q) => q.body.split(w.text).length - 1));
        expect({ wake: w.text, events: wrapperIds.size, copiesPerPrompt }).toEqual({ wake: w.text, events: 1, copiesPerPrompt: 1 });
      }
      expect(await sql("SELECT count(*) FROM inbound_webhooks.wakes")).toBe("0");
      // The receiver ran nothing: it is a receiver to the end, and every turn was OpenClaw's.
      expect(receiver.child.exitCode).toBeNull();

      process.stderr.write(
        `\nopenclaw-postgres-consumer: ${all.length} keyed deliveries over ${SESSIONS} sessions (${retried.length} retried: same run id) and ${WAKES} wakes ` +
          `answered by the receiver in ${sentSeconds.toFixed(1)} s; ${all.length} runs succeeded inside OpenClaw, one model call each, ` +
          `drained ${drainSeconds.toFixed(1)} s after the first send; wakes at the model by ${wakeSeconds.toFixed(1)} s; ${model.requests.length} model requests\n`,
      );
      passed("a receiver stores, the plugin inside OpenClaw consumes over Postgres: every run once, in order; wakes once");
    }, 1_200_000);

    // Issue 34: the consumer handed a stored wake to OpenClaw's memory and deleted it from Postgres, so a stop of OpenClaw
    // before a turn carried it lost it. It is now kept in the plugin's local outbox until a turn carried it.
    it("a wake the receiver stored while OpenClaw runs, handed to it and gone from Postgres, then OpenClaw stopped (SIGTERM) before any turn carried it, reaches the model after `openclaw gateway run` again, once", async () => {
      const text = `pgclaw-kept-wake-${crypto.randomBytes(4).toString("hex")}`;
      // next-heartbeat: no turn is asked for, so none carries it before the stop.
      expect((await post(receiver.baseUrl, "/hooks/wake", { text, mode: "next-heartbeat" })).status).toBe(200);
      await until(async () => (await sql("SELECT count(*) FROM inbound_webhooks.wakes")) === "0", "the consumer inside OpenClaw to take the wake", {
        ...SLOW,
        detail,
      });
      expect(model.chatsContaining(text)).toEqual([]);
      await host.stop(600_000);
      expect(model.chatsContaining(text)).toEqual([]);
      host.start();
      await pluginServes("the plugin to serve again after the restart");
      // Handed again at the start, with a heartbeat: the model sees it in a main-session turn.
      await until(() => model.chatsContaining(text).length > 0, "the kept wake to reach the model after the restart", {
        timeoutMs: 300_000,
        intervalMs: 500,
        detail,
      });
      const chats = model.chatsContaining(text);
      const wrapperIds = new Set(chats.flatMap((q) => wrapperIdsAround(q.body, text)));
      const copiesPerPrompt = Math.max(...chats.map((q) => q.body.split(text).length - 1));
      expect({ events: wrapperIds.size, copiesPerPrompt }).toEqual({ events: 1, copiesPerPrompt: 1 });
      expect(await sql("SELECT count(*) FROM inbound_webhooks.wakes")).toBe("0");
      passed("a wake handed to OpenClaw and gone from Postgres survives a stop before a turn, and reaches the model once");
    }, 1_800_000);
  });
});

/** The ids of the untrusted-content wrappers around each occurrence of `text` in a request's body (as JSON text). */
function wrapperIdsAround(body: string, text: string): string[] {
  const opening = "EXTERNAL_UNTRUSTED_CONTENT id=";
  const ids: string[] = [];
  for (let at = body.indexOf(text); at >= 0; at = body.indexOf(text, at + text.length)) {
    const open = body.lastIndexOf(opening, at);
    if (open < 0) continue;
    const rest = body.slice(open + opening.length, open + opening.length + 80).replace(/^\\?"/, "");
    ids.push(rest.slice(0, rest.search(/[\\"]/)));
  }
  return ids;
}
