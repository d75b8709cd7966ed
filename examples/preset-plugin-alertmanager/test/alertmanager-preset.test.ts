/**
 * The Alertmanager preset, compiled by the real mapping engine from this plugin's
 * manifest exactly as the host hands it over (`listPresets()`: transformsDir made
 * absolute), and checked against the real Alertmanager payloads in fixtures/.
 */
import { validateAction } from "../../../src/actions/validate";
import { createMappingEngine } from "../../../src/mappings/engine";
import type { MappedHookInput } from "../../../src/core/ports";
import { createFakeHost } from "../../../test/helpers/fake-host";
import { captureLogger, makeConfig } from "../../../test/mappings/helpers";
import { alertmanagerContributions, alertmanagerFixture as fixture } from "./contributions";

function input(payload: Record<string, unknown>): MappedHookInput {
  return {
    name: "alertmanager",
    payload,
    headers: { "content-type": "application/json", "user-agent": "Alertmanager/0.28.1", authorization: "Bearer test-hook-token-0123456789abcdef" },
    query: {},
    url: "/hooks/alertmanager",
    requestId: "req-am",
  };
}

function engine() {
  return createMappingEngine({ config: makeConfig({ presets: ["alertmanager"] }), presets: alertmanagerContributions(), logger: captureLogger() });
}

describe("alertmanager preset plugin", () => {
  test("the manifest declares one preset whose mapping is on path alertmanager", () => {
    expect(engine().describe()).toEqual([
      {
        id: "alertmanager",
        key: "presets.alertmanager.mappings[0]",
        origin: { kind: "preset", preset: "alertmanager", pluginId: "alertmanager-preset", index: 0 },
        match: { path: "alertmanager" },
        action: "agent",
        transform: { module: "alertmanager.ts" },
        reachable: true,
      },
    ]);
  });

  test("a firing notification becomes one agent run listing every alert, valid like a direct request", async () => {
    const r = await engine().resolve(input(fixture("firing.json")));
    if (!r.ok || r.value.kind !== "action") throw new Error("expected an action");
    expect(r.value.mappingId).toBe("alertmanager");
    expect(r.value.allowUnsafeExternalContent).toBe(false);
    const raw = r.value.raw;
    expect(raw).toMatchObject({ kind: "agent", name: "Alertmanager DiskAlmostFull", deliver: true, channel: "last" });
    expect(raw.sessionKey).toMatch(/^hook:alertmanager:[0-9a-f]{16}$/);
    expect(raw.message).toBe(
      [
        "Alertmanager: 2 alerts firing for DiskAlmostFull (receiver assistant).",
        [
          "1. [critical] Disk /srv/media almost full",
          "   Only 4.2% space left on /srv/media at nas.home.arpa:9100.",
          "   Labels: device=/dev/sda1, fstype=ext4, instance=nas.home.arpa:9100, job=node, mountpoint=/srv/media",
          "   Since: 2025-03-14T08:02:11.123Z",
          "   Link: https://wiki.home.arpa/runbooks/disk-full",
        ].join("\n"),
        [
          "2. [critical] Disk /srv/backup almost full",
          "   Only 2.9% space left on /srv/backup at nas.home.arpa:9100.",
          "   Labels: device=/dev/sdb1, fstype=ext4, instance=nas.home.arpa:9100, job=node, mountpoint=/srv/backup",
          "   Since: 2025-03-14T08:04:41.870Z",
          "   Link: https://wiki.home.arpa/runbooks/disk-full",
        ].join("\n"),
        "Alertmanager: http://alertmanager.home.arpa:9093",
      ].join("\n\n"),
    );
    const host = createFakeHost();
    const v = validateAction(raw, { runtime: host.api.runtime, config: makeConfig() }, "action");
    expect(v.ok && v.value).toMatchObject({ kind: "agent", name: "Alertmanager DiskAlmostFull", sessionKey: raw.sessionKey, channel: "last", deliver: true });
  });

  test("repeat notifications of one alert group continue one session", async () => {
    const e = engine();
    const first = await e.resolve(input(fixture("firing.json")));
    const again = await e.resolve(input({ ...fixture("firing.json"), alerts: [(fixture("firing.json").alerts as unknown[])[0]] }));
    const key = (r: typeof first) => (r.ok && r.value.kind === "action" ? r.value.raw.sessionKey : undefined);
    expect(key(again)).toBe(key(first));
    const otherGroup = await e.resolve(input({ ...fixture("firing.json"), groupKey: '{}:{alertname="Other"}' }));
    expect(key(otherGroup)).not.toBe(key(first));
  });

  test("an all-resolved notification becomes a system event at the next heartbeat", async () => {
    const r = await engine().resolve(input(fixture("resolved.json")));
    if (!r.ok || r.value.kind !== "action") throw new Error("expected an action");
    expect(r.value.raw).toEqual({
      kind: "wake",
      mode: "next-heartbeat",
      text: [
        "Alertmanager: 1 alert of DiskAlmostFull resolved.",
        [
          "1. [critical] Disk /srv/media almost full",
          "   Only 4.2% space left on /srv/media at nas.home.arpa:9100.",
          "   Labels: device=/dev/sda1, fstype=ext4, instance=nas.home.arpa:9100, job=node, mountpoint=/srv/media",
          "   Since: 2025-03-14T08:02:11.123Z",
          "   Resolved at: 2025-03-14T09:47:26.402Z",
          "   Link: https://wiki.home.arpa/runbooks/disk-full",
        ].join("\n"),
      ].join("\n\n"),
    });
  });

  test("truncated alerts are counted", async () => {
    const r = await engine().resolve(input({ ...fixture("firing.json"), truncatedAlerts: 3 }));
    expect(r.ok && r.value.kind === "action" && String(r.value.raw.message)).toContain("Alertmanager left out 3 further alerts.");
  });

  test("a notification without alerts is skipped", async () => {
    expect(await engine().resolve(input({ ...fixture("firing.json"), alerts: [] }))).toEqual({ ok: true, value: { kind: "skip", mappingId: "alertmanager" } });
  });

  test("not enabled in hooks.presets, the preset does nothing", async () => {
    const e = createMappingEngine({ config: makeConfig(), presets: alertmanagerContributions(), logger: captureLogger() });
    expect(await e.resolve(input(fixture("firing.json")))).toEqual({ ok: true, value: { kind: "no_match" } });
  });
});
