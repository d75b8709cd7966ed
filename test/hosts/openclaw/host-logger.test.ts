import { openClawLogger } from "../../../src/hosts/openclaw/host-logger";

describe("the plugin's logger on OpenClaw's", () => {
  const lines: string[] = [];
  const oc = {
    debug: (m: string) => void lines.push(`debug ${m}`),
    info: (m: string) => void lines.push(`info ${m}`),
    warn: (m: string) => void lines.push(`warn ${m}`),
    error: (m: string) => void lines.push(`error ${m}`),
  };
  beforeEach(() => (lines.length = 0));

  it("writes the module label and the meta as JSON after the message", () => {
    openClawLogger(oc).info("run finished", { module: "runs", plugin: "inbound-webhooks", runId: "r1" });
    expect(lines).toEqual(['info [runs] run finished {"runId":"r1"}']);
  });

  it("writes the plugin's sentence as it is (the plugin names its keys as OpenClaw's itself) and the meta untouched", () => {
    openClawLogger(oc).warn("queued again (plugins.entries.inbound-webhooks.config.runs.retryInterrupted)", { module: "runs", url: "/webhooks/hooks.x" });
    expect(lines).toEqual(['warn [runs] queued again (plugins.entries.inbound-webhooks.config.runs.retryInterrupted) {"url":"/webhooks/hooks.x"}']);
  });

  it("reports debug as discarded unless OpenClaw keeps debug lines (verbose or file level debug)", () => {
    expect(openClawLogger(oc, () => false).isLevelEnabled!("debug")).toBe(false);
    expect(openClawLogger(oc, () => true).isLevelEnabled!("debug")).toBe(true);
    expect(openClawLogger(oc, () => false).isLevelEnabled!("info")).toBe(true);
    expect(openClawLogger({ info: oc.info, warn: oc.warn, error: oc.error }, () => true).isLevelEnabled!("debug")).toBe(false);
  });

  it("keeps debug lines when OpenClaw cannot say (its runtime is not available)", () => {
    expect(
      openClawLogger(oc, () => {
        throw new Error("runtime is intentionally unavailable");
      }).isLevelEnabled!("debug"),
    ).toBe(true);
  });
});
