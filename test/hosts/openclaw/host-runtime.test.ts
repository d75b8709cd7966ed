import { configuredChannels, defaultAgentId, knownAgents, lastRouteOf } from "../../../src/hosts/openclaw/host-runtime";

describe("OpenClaw's channels and last route", () => {
  it("offers the channels configured in OpenClaw, not those switched off", () => {
    expect(configuredChannels({ channels: { telegram: { botToken: "x" }, slack: { enabled: false }, defaults: "x" } })).toEqual(["telegram"]);
  });

  it("reads the main session's last route from its external delivery state", () => {
    expect(lastRouteOf({ delivery: { kind: "external", context: { channel: "telegram", to: "12345" } } })).toEqual({ channel: "telegram", to: "12345" });
    expect(lastRouteOf({ delivery: { kind: "internal" } })).toBeUndefined();
    expect(lastRouteOf(undefined)).toBeUndefined();
  });

  it("uses the agent marked default for the main session key", () => {
    expect(defaultAgentId({ agents: { list: [{ id: "ops" }, { id: "home", default: true }] } })).toBe("home");
    expect(defaultAgentId({})).toBe("main");
  });

  it("knows the agents of agents.list (as OpenClaw keeps them, lower case), or main alone", () => {
    expect(knownAgents({ agents: { list: [{ id: "Ops" }, { id: "home", default: true }, { name: "no id" }] } })).toEqual({
      ids: ["ops", "home"],
      defaultId: "home",
    });
    expect(knownAgents({})).toEqual({ ids: ["main"], defaultId: "main" });
  });

  // Regression: agentId-ignored-agents-entries. OpenClaw 2026.9.6 keeps its agents keyed under agents.entries
  // (agents.list is the legacy roster doctor migrates); the plugin read agents.list only and knew main alone.
  it("knows the agents of agents.entries (the key is the id; it wins over a legacy agents.list), and their default", () => {
    const config = { agents: { entries: { main: { default: true }, Ops: { workspace: "/w" }, broken: "x" }, list: [{ id: "old" }] } };
    expect(knownAgents(config)).toEqual({ ids: ["main", "ops"], defaultId: "main" });
    expect(defaultAgentId({ agents: { entries: { ops: {}, home: { default: true } } } })).toBe("home");
    expect(defaultAgentId({ agents: { entries: { ops: {} } } })).toBe("ops");
  });
});
