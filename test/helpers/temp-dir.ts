/** Shared helpers of the reliability unit tests. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPluginLogger, type ModuleLogger } from "../../src/logging/logger";
import type { HostLogger } from "../../src/host-contract/host-api";
import type { AgentAction, ActionSource } from "../../src/core/actions";
import type { RunTurnResult } from "../../src/host-contract/host-api";
import type { RunRecord } from "../../src/core/runs";

export interface RecordedLog {
  level: string;
  message: string;
  meta?: Record<string, unknown>;
}

/** A module logger that records what it is given. */
export function recordingLogger(module = "test"): { logger: ModuleLogger; lines: RecordedLog[]; close(): void } {
  const lines: RecordedLog[] = [];
  const logAt = (level: string) => (message: string, meta?: Record<string, unknown>) => void lines.push({ level, message, meta });
  const host: HostLogger = { debug: logAt("debug"), info: logAt("info"), warn: logAt("warn"), error: logAt("error") };
  const logs = createPluginLogger(host);
  return { logger: logs.forModule(module), lines, close: () => logs.close() };
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = "iw-rel-"): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function agentAction(overrides: Partial<AgentAction> = {}): AgentAction {
  return {
    kind: "agent",
    message: "summarise the build",
    name: "CI",
    sessionKey: "hook:ci-1",
    wakeMode: "now",
    deliver: true,
    channel: "last",
    timeoutSeconds: 600,
    ...overrides,
  };
}

export function actionSource(overrides: Partial<ActionSource> = {}): ActionSource {
  return { hook: "agent", requestId: "req-1", allowUnsafeExternalContent: false, ...overrides };
}

export function runRecord(overrides: Partial<RunRecord> & Pick<RunRecord, "id" | "seq">): RunRecord {
  return {
    status: "queued",
    action: agentAction(),
    source: actionSource(),
    createdAt: "2030-01-01T00:00:00.000Z",
    ...overrides,
  };
}

/** A runner whose turns finish only when the test releases them (or their signal aborts). */
export function gatedRunner() {
  const gates = new Map<string, Array<(r: RunTurnResult) => void>>();
  const active = new Set<string>();
  const started: string[] = [];
  let maxActive = 0;
  /** The hook-supplied text inside the safety wrapper (the line after `---`). */
  const inner = (message: string): string => {
    const m = /\n---\n([\s\S]*?)\n<<<END_EXTERNAL_UNTRUSTED_CONTENT/.exec(message);
    return m ? m[1]! : message;
  };
  return {
    started,
    active,
    get maxActive() {
      return maxActive;
    },
    /** Finishes the oldest waiting turn whose (unwrapped) message is `message`. */
    release(message: string, result: RunTurnResult = { status: "ok", reply: `done ${message}` }) {
      const waiting = gates.get(message);
      const open = waiting?.shift();
      if (!open) throw new Error(`no turn waiting for ${message}`);
      open(result);
    },
    releaseAll() {
      for (const [m, list] of gates) while (list.length > 0) list.shift()!({ status: "ok", reply: `done ${m}` });
    },
    runTurn: (req: { message: string; signal: AbortSignal }) =>
      new Promise<RunTurnResult>((resolve) => {
        const message = inner(req.message);
        started.push(message);
        active.add(message);
        maxActive = Math.max(maxActive, active.size);
        let settled = false;
        const done = (r: RunTurnResult) => {
          if (settled) return;
          settled = true;
          active.delete(message);
          const waiting = gates.get(message);
          if (waiting) waiting.splice(waiting.indexOf(done) >>> 0, waiting.includes(done) ? 1 : 0);
          resolve(r);
        };
        const list = gates.get(message) ?? [];
        list.push(done);
        gates.set(message, list);
        req.signal.addEventListener("abort", () => done({ status: "error", error: "aborted" }), { once: true });
      }),
  };
}
