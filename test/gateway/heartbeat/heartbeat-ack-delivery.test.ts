/**
 * The gateway's heartbeat delivery against the shared heartbeat-ack table
 * (test/host-contract/heartbeat-ack-cases.ts): the real heartbeat, session store,
 * journal and channel registry, with a scripted runner reply. The gateway once had
 * its own copy of the rule and delivered `<p><b>HEARTBEAT_OK</b>&nbsp;</p>`,
 * `<span class="x">HEARTBEAT_OK</span>`, `> HEARTBEAT_OK ✓` and
 * `HEARTBEAT_OK HEARTBEAT_OK` as chat messages.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EventEmitter } from "eventemitter3";
import { createHeartbeat } from "../../../src/gateway/heartbeat/heartbeat";
import { createSessionStore } from "../../../src/gateway/sessions/session-store";
import { createJournal } from "../../../src/gateway/journal/journal";
import { createAgentTurns } from "../../../src/gateway/runners/agent-turns";
import { createChannelRegistry } from "../../../src/gateway/channels/channel-registry";
import type { HostEvents, HostLogger } from "../../../src/host-contract/host-api";
import { ACK_REPLIES, NOT_ACK_REPLIES } from "../../host-contract/heartbeat-ack-cases";

const quiet: HostLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** Runs one heartbeat over one pending event whose turn replies `reply`; returns the journal. */
async function heartbeatWithReply(reply: string): Promise<Array<Record<string, unknown>>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-hb-ack-"));
  dirs.push(dir);
  const sessions = createSessionStore({ dir: path.join(dir, "sessions") });
  const journal = createJournal({ file: path.join(dir, "journal.jsonl") });
  const turns = createAgentTurns({ runner: { kind: "script", run: async () => ({ status: "ok", reply }) }, sessions, journal, logger: quiet, mainKey: "main" });
  const channels = createChannelRegistry({ journal, sessions, mainKey: "main", seedLastRoute: { channel: "bot_chat", to: "9" }, logger: quiet });
  const hb = createHeartbeat({
    everyMs: 0,
    mainKey: "main",
    sessions,
    turns,
    channels,
    journal,
    events: new EventEmitter<HostEvents>(),
    logger: quiet,
    turnTimeoutMs: 5000,
  });
  sessions.enqueue("main", "Hook Deploy: done");
  await hb.runNow("test");
  await hb.stop();
  journal.close();
  return fs
    .readFileSync(journal.file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("gateway heartbeat delivery and the shared heartbeat-ack table", () => {
  it.each(ACK_REPLIES)("an acknowledgement is not delivered: %s", async (_label, reply) => {
    const entries = await heartbeatWithReply(reply);
    expect(entries.map((e) => e.type)).toEqual(["heartbeat", "agent_turn", "system_events_consumed"]);
  });

  it.each(NOT_ACK_REPLIES)("a reply that says more is delivered on the last route: %s", async (_label, reply) => {
    const entries = await heartbeatWithReply(reply);
    expect(entries.map((e) => e.type)).toEqual(["heartbeat", "agent_turn", "system_events_consumed", "delivery"]);
    expect(entries[3]).toMatchObject({ channel: "bot_chat", to: "9", text: reply });
  });
});
