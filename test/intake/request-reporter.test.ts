import { createPluginEmitter } from "../../src/core/events";
import { outcome } from "../../src/core/outcome";
import { createRequestReporter, type RequestRecord } from "../../src/intake/request-reporter";
import type { ModuleLogger } from "../../src/logging/logger";

function recordingLogger() {
  const lines: Array<[string, string, Record<string, unknown>]> = [];
  const at = (level: string) => (message: string, meta: Record<string, unknown>) => void lines.push([level, message, meta]);
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } as unknown as ModuleLogger };
}

const requestRecord = (): RequestRecord => ({
  requestId: "r1",
  startedAt: 1000,
  client: "127.0.0.1",
  method: "POST",
  url: "/hooks/wake?token=[REDACTED]",
  hook: "wake",
  bodyBytes: 12,
  reported: false,
});

describe("createRequestReporter", () => {
  it("logs an acceptance once at debug and emits it", () => {
    const { lines, logger } = recordingLogger();
    const emitter = createPluginEmitter();
    const events: unknown[] = [];
    emitter.on("request:accepted", (e) => events.push(e));
    const reporter = createRequestReporter({ logger, emitter, clock: () => 1250 });
    const r = requestRecord();
    reporter.report(r, 202, outcome({ kind: "agent", stage: "accept", authenticated: true, runIds: ["run-1"] }));
    reporter.report(r, 202, outcome({ kind: "agent", stage: "accept", authenticated: true, runIds: ["run-1"] }));
    reporter.report(r, 500, outcome({ kind: "refused", stage: "accept", code: "internal_error" }));
    expect(events).toEqual([{ requestId: "r1", hook: "wake", status: 202, kind: "agent", runId: "run-1", mappingId: undefined, replayed: undefined }]);
    expect(lines).toHaveLength(1);
    expect(lines[0][0]).toBe("debug"); // per-request acceptance lines are debug (refusals stay warn/error)
    expect(lines[0][2]).toMatchObject({ requestId: "r1", hook: "wake", status: 202, bytes: 12, latencyMs: 250, kind: "agent", runId: "run-1" });
  });

  it("logs 4xx rejections as warnings and 5xx as errors, and emits the code", () => {
    const { lines, logger } = recordingLogger();
    const emitter = createPluginEmitter();
    const events: unknown[] = [];
    emitter.on("request:rejected", (e) => events.push(e));
    const reporter = createRequestReporter({ logger, emitter, clock: () => 1000 });
    reporter.report(requestRecord(), 401, outcome({ kind: "refused", stage: "credential", code: "unauthorized" }));
    reporter.report(requestRecord(), 503, outcome({ kind: "refused", stage: "accept", authenticated: true, code: "overloaded" }));
    expect(lines.map((l) => l[0])).toEqual(["warn", "error"]);
    expect(lines[0][2]).toMatchObject({ code: "unauthorized", url: "/hooks/wake?token=[REDACTED]", method: "POST" });
    expect(events).toEqual([
      { requestId: "r1", hook: "wake", status: 401, code: "unauthorized" },
      { requestId: "r1", hook: "wake", status: 503, code: "overloaded" },
    ]);
  });
});
