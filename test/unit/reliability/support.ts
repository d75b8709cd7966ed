/** Shared helpers of the reliability unit tests. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPluginLogger, type ModuleLogger } from "../../../src/logging/logger";
import type { HostLogger } from "../../../src/plugin/host-api";
import type { AgentAction, ActionSource } from "../../../src/actions/types";
import type { RunRecord } from "../../../src/runs/types";

export interface RecordedLog {
  level: string;
  message: string;
  meta?: Record<string, unknown>;
}

/** A module logger that records what it is given. */
export function recordingLogger(module = "test"): { logger: ModuleLogger; lines: RecordedLog[]; close(): void } {
  const lines: RecordedLog[] = [];
  const rec = (level: string) => (message: string, meta?: Record<string, unknown>) => void lines.push({ level, message, meta });
  const host: HostLogger = { debug: rec("debug"), info: rec("info"), warn: rec("warn"), error: rec("error") };
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
