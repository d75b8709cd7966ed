import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BUILTIN_CHANNELS, createChannelRegistry } from "../../../src/gateway/channels/channel-registry";
import { createSessionStore } from "../../../src/gateway/sessions/session-store";
import { createJournal } from "../../../src/gateway/journal/journal";

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function setup(seed?: { channel: string; to?: string }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-ch-"));
  const journal = createJournal({ file: path.join(dir, "journal.jsonl") });
  const sessions = createSessionStore({ dir: path.join(dir, "sessions") });
  const channels = createChannelRegistry({ journal, sessions, mainKey: "main", seedLastRoute: seed, logger: quiet });
  const entries = () =>
    fs
      .readFileSync(journal.file, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { channels, sessions, entries };
}

describe("channel registry", () => {
  it("offers the seven built-in outbox channels", () => {
    expect(setup().channels.list()).toEqual(["phone_chat", "bot_chat", "community_chat", "workspace_chat", "privacy_chat", "device_chat", "enterprise_chat"]);
    expect(BUILTIN_CHANNELS).toHaveLength(7);
  });

  it("journals a built-in delivery and makes it the main session's last route (over the config seed)", async () => {
    const t = setup({ channel: "phone_chat", to: "+15550001" });
    expect(t.channels.resolveLast("main")).toEqual({ channel: "phone_chat", to: "+15550001" });
    await t.channels.deliver({ channel: "enterprise_chat", to: "conv-1", text: "hello" });
    expect(t.entries()).toEqual([{ ts: expect.any(String), type: "delivery", channel: "enterprise_chat", to: "conv-1", text: "hello" }]);
    expect(t.channels.resolveLast("main")).toEqual({ channel: "enterprise_chat", to: "conv-1" });
    expect(t.channels.resolveLast("hook:other")).toBeUndefined();
  });

  it("rejects an unknown channel, listing the available ones", async () => {
    await expect(setup().channels.deliver({ channel: "workspace_chat_plugin", text: "x" })).rejects.toThrow(
      'unknown channel "workspace_chat_plugin"; available: phone_chat, bot_chat, community_chat, workspace_chat, privacy_chat, device_chat, enterprise_chat',
    );
  });

  it("delivers through a plugin channel; a failing plugin delivery rejects and is not journaled", async () => {
    const t = setup();
    const got: string[] = [];
    t.channels.register("workspace_chat_plugin", (r) => void got.push(`${r.to}:${r.text}`), "ex");
    expect(t.channels.list()).toContain("workspace_chat_plugin");
    await t.channels.deliver({ channel: "workspace_chat_plugin", to: "C1", text: "hi" });
    expect(got).toEqual(["C1:hi"]);
    expect(t.entries()[0]).toMatchObject({ type: "delivery", channel: "workspace_chat_plugin", to: "C1", via: "ex" });
    t.channels.register("flaky", () => Promise.reject(new Error("API down")), "ex");
    await expect(t.channels.deliver({ channel: "flaky", text: "x" })).rejects.toThrow("API down");
    expect(t.entries()).toHaveLength(1);
  });

  it("refuses invalid, built-in and taken channel ids", () => {
    const t = setup();
    expect(() => t.channels.register("Bad-Id", () => {}, "p")).toThrow('channel id "Bad-Id" must be lowercase letters, digits and underscores');
    expect(() => t.channels.register("bot_chat", () => {}, "p")).toThrow('channel "bot_chat" is built in and cannot be registered by plugin p');
    t.channels.register("mine", () => {}, "p");
    expect(() => t.channels.register("mine", () => {}, "q")).toThrow('channel "mine" is already registered by plugin p');
  });
});
