import { configuredChannels, defaultAgentId, lastRouteOf } from "../../../src/hosts/openclaw/host-runtime";

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
});
