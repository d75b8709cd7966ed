/**
 * The plugin's loggers forward straight to the host logger: module and plugin
 * labels, redaction of secrets in meta and text, and no work for a level the
 * host discards.
 */
import type { HostLogger } from "../../src/host-contract/host-api";
import { createPluginLogger } from "../../src/logging/logger";

function host(enabled?: (level: string) => boolean): HostLogger & { lines: Array<[string, string, Record<string, unknown> | undefined]> } {
  const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) => void lines.push([level, message, meta]);
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), ...(enabled ? { isLevelEnabled: enabled } : {}) };
}

describe("createPluginLogger", () => {
  it("forwards each line with its module and plugin labels, redacting secret keys, token queries and Bearer credentials", () => {
    const h = host();
    createPluginLogger(h, "p1")
      .forModule("http")
      .warn("refused /hooks/wake?token=abc with Bearer xyz", { requestId: "r1", token: "s3cret", url: "/hooks/agent?token=abc" });
    expect(h.lines).toEqual([
      [
        "warn",
        "refused /hooks/wake?token=[REDACTED] with Bearer [REDACTED]",
        { module: "http", plugin: "p1", requestId: "r1", token: "[REDACTED]", url: "/hooks/agent?token=[REDACTED]" },
      ],
    ]);
  });

  it("drops a line of a level the host discards without building it, and keeps the levels it keeps", () => {
    const h = host((level) => level !== "debug");
    const log = createPluginLogger(h).forModule("runs");
    const meta = {
      get runId(): string {
        throw new Error("meta of a dropped line was read");
      },
    };
    log.debug("run queued", meta);
    log.info("run queue recovered", { queued: 0 });
    expect(h.lines.map(([level, message]) => [level, message])).toEqual([["info", "run queue recovered"]]);
  });

  it("keeps every level for a host that does not say which it discards", () => {
    const h = host();
    const log = createPluginLogger(h).forModule("runs");
    log.debug("d");
    log.info("i");
    log.warn("w");
    log.error("e");
    expect(h.lines.map(([level]) => level)).toEqual(["debug", "info", "warn", "error"]);
  });
});
