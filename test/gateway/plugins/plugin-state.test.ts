/**
 * `<stateDir>/plugins.json` (`gateway plugins disable|enable`): replaced whole or not at all.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openPluginState } from "../../../src/gateway/plugins/plugin-state";
import { fullDiskAfter } from "../storage/full-disk";

describe("plugin state file", () => {
  let stateDir: string;
  beforeEach(() => {
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-pstate-"));
  });
  afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  it("regression: a full disk during 'gateway plugins disable' left plugins.json cut short, and every later start failed ('is not valid JSON'); now the previous file stays whole", () => {
    const state = openPluginState(stateDir);
    state.setEnabled("mail-relay", false);
    const disk = fullDiskAfter(10);
    try {
      expect(() => state.setEnabled("workspace-chat-channel", false)).toThrow(expect.objectContaining({ code: "ENOSPC" }));
    } finally {
      disk.restore();
    }
    const reopened = openPluginState(stateDir);
    expect(reopened.isEnabled("mail-relay")).toBe(false);
    expect(reopened.isEnabled("workspace-chat-channel")).toBe(true);
    expect(fs.readdirSync(stateDir)).toEqual(["plugins.json"]);
  });
});
