import { ConfigError } from "../../src/core/errors";
import { createMappingEngine } from "../../src/mappings/engine";
import type { HookPresetContribution } from "../../src/host-contract/host-api";
import { isCredentialName } from "../../src/host-contract/redaction";
import type { MappedHookOutcome } from "../../src/core/ports";
import { captureLogger, fixedClock, hookInput, makeConfig, mapping, TRANSFORM_FIXTURES } from "./helpers";

function engineWith(mappings: ReturnType<typeof mapping>[], extra: Parameters<typeof makeConfig>[0] = {}, presets: HookPresetContribution[] = []) {
  const logger = captureLogger();
  const engine = createMappingEngine({ config: makeConfig({ mappings, ...extra }), presets, logger, clock: fixedClock });
  return { engine, logger };
}

async function matched(engine: ReturnType<typeof createMappingEngine>, name: string, payload: Record<string, unknown> = {}): Promise<string | undefined> {
  const r = await engine.resolve(hookInput(name, payload));
  if (!r.ok) throw new Error(`unexpected error ${r.error.code}`);
  const o: MappedHookOutcome = r.value;
  return o.kind === "no_match" ? undefined : o.mappingId;
}

const alertPreset: HookPresetContribution = {
  name: "alerts",
  pluginId: "alerts-plugin",
  description: "test preset",
  mappings: [{ id: "alerts-path", match: { path: "alerts" }, action: "wake", textTemplate: "alert {{ title }}" }],
};

describe("mapping matching (SPEC §6.1)", () => {
  test("match.path is an exact match on the sub-path", async () => {
    const { engine } = engineWith([mapping({ id: "gh", match: { path: "github" }, messageTemplate: "x" })]);
    expect(await matched(engine, "github")).toBe("gh");
    expect(await matched(engine, "github/push")).toBeUndefined();
    expect(await matched(engine, "githubx")).toBeUndefined();
    expect(await matched(engine, "GitHub")).toBeUndefined();
  });

  test("match.source routes a generic endpoint by payload.source", async () => {
    const { engine } = engineWith([
      mapping({ id: "crm", match: { source: "crm" }, messageTemplate: "crm" }),
      mapping({ id: "billing", match: { source: "billing" }, messageTemplate: "billing" }),
    ]);
    expect(await matched(engine, "ingest", { source: "billing" })).toBe("billing");
    expect(await matched(engine, "ingest", { source: "crm" })).toBe("crm");
    expect(await matched(engine, "anything/else", { source: "crm" })).toBe("crm");
    expect(await matched(engine, "ingest", { source: "other" })).toBeUndefined();
    expect(await matched(engine, "ingest", {})).toBeUndefined();
    expect(await matched(engine, "ingest", { source: ["crm"] })).toBeUndefined();
  });

  test("path and source together must both hold", async () => {
    const { engine } = engineWith([mapping({ id: "both", match: { path: "ingest", source: "crm" }, messageTemplate: "x" })]);
    expect(await matched(engine, "ingest", { source: "crm" })).toBe("both");
    expect(await matched(engine, "ingest", { source: "billing" })).toBeUndefined();
    expect(await matched(engine, "other", { source: "crm" })).toBeUndefined();
  });

  test("a mapping with neither path nor source catches every remaining name", async () => {
    const { engine } = engineWith([mapping({ id: "gh", match: { path: "github" }, messageTemplate: "x" }), mapping({ id: "catch-all", messageTemplate: "y" })]);
    expect(await matched(engine, "github")).toBe("gh");
    expect(await matched(engine, "zapier")).toBe("catch-all");
    expect(await matched(engine, "a/b/c", { source: "x" })).toBe("catch-all");
  });

  test("first match wins", async () => {
    const { engine } = engineWith([
      mapping({ id: "by-source", match: { source: "crm" }, messageTemplate: "1" }),
      mapping({ id: "by-path", match: { path: "ingest" }, messageTemplate: "2" }),
    ]);
    expect(await matched(engine, "ingest", { source: "crm" })).toBe("by-source");
    expect(await matched(engine, "ingest", { source: "other" })).toBe("by-path");
  });

  test("wake and agent are direct endpoints: a catch-all or a mapping on them never gets them", async () => {
    const { engine, logger } = engineWith([
      mapping({ id: "on-wake", match: { path: "wake" }, messageTemplate: "x" }),
      mapping({ id: "catch-all", messageTemplate: "y" }),
    ]);
    expect(await matched(engine, "wake")).toBeUndefined();
    expect(await matched(engine, "agent")).toBeUndefined();
    const warn = logger.at("warn").find((l) => l.meta?.mappingId === "on-wake");
    expect(warn?.message).toBe('mapping "on-wake" (hooks.mappings[0]) can never match: match.path "wake" is a direct endpoint, which mappings cannot shadow');
    expect(engine.describe().find((d) => d.id === "on-wake")?.reachable).toBe(false);
  });

  test("a configured mapping beats a preset on the same path; the shadowed preset mapping is reported", async () => {
    const { engine, logger } = engineWith([mapping({ id: "mine", match: { path: "alerts" }, messageTemplate: "mine" })], { presets: ["alerts"] }, [
      alertPreset,
    ]);
    expect(await matched(engine, "alerts")).toBe("mine");
    expect(logger.at("warn").map((l) => l.message)).toContain(
      'mapping "alerts-path" (presets.alerts.mappings[0]) can never match: it is shadowed by mapping "mine" (hooks.mappings[0]), which comes first and matches every request it would',
    );
    expect(engine.describe().map((d) => [d.id, d.origin.kind, d.reachable])).toEqual([
      ["mine", "config", true],
      ["alerts-path", "preset", false],
    ]);
  });

  test("mappings after a catch-all, and identical matches, are reported as never matching", () => {
    const { logger } = engineWith([
      mapping({ id: "first", match: { path: "a" }, messageTemplate: "1" }),
      mapping({ id: "same", match: { path: "a" }, messageTemplate: "2" }),
      mapping({ id: "narrower", match: { path: "a", source: "s" }, messageTemplate: "3" }),
      mapping({ id: "all", messageTemplate: "4" }),
      mapping({ id: "late", match: { source: "z" }, messageTemplate: "5" }),
    ]);
    const warned = logger.at("warn").map((l) => l.meta?.mappingId);
    expect(warned).toEqual(["same", "narrower", "late"]);
    expect(logger.at("warn")[2].message).toContain('shadowed by the catch-all mapping "all" (hooks.mappings[3])');
  });

  test("a mapping that can still match is not reported", () => {
    const { logger } = engineWith([
      mapping({ id: "narrow", match: { path: "a", source: "s" }, messageTemplate: "1" }),
      mapping({ id: "wider", match: { path: "a" }, messageTemplate: "2" }),
      mapping({ id: "by-source", match: { source: "s" }, messageTemplate: "3" }),
    ]);
    expect(logger.at("warn")).toEqual([]);
  });

  test("a toleranceSeconds on a scheme that signs no timestamp is reported at start (it was silently ignored: no replay protection, though the config suggests one)", () => {
    const { logger } = engineWith([
      mapping({ id: "gh", match: { path: "gh" }, messageTemplate: "1", verify: { scheme: "github", secret: "s3cret-github", toleranceSeconds: 300 } }),
      mapping({ id: "st", match: { path: "st" }, messageTemplate: "2", verify: { scheme: "stripe", secret: "whsec_s3cret", toleranceSeconds: 300 } }),
    ]);
    expect(logger.at("warn").map((l) => l.message)).toEqual([
      "hooks.mappings[0].verify.toleranceSeconds has no effect: the github scheme signs no timestamp, so a captured request is not refused for its age",
    ]);
  });

  test("duplicate ids are reported at start", () => {
    const { logger } = engineWith([
      mapping({ id: "dup", match: { path: "a" }, messageTemplate: "1" }),
      mapping({ id: "dup", match: { path: "b" }, messageTemplate: "2" }),
    ]);
    expect(logger.at("warn").map((l) => l.message)).toEqual([
      'duplicate mapping id "dup" (hooks.mappings[0], hooks.mappings[1]); responses and logs cannot tell these mappings apart',
    ]);
  });

  test("the duplicate-id warning lists the entries under a meta name the log redaction keeps (its keys field was logged as [REDACTED])", () => {
    const { logger } = engineWith([
      mapping({ id: "dup", match: { path: "a" }, messageTemplate: "1" }),
      mapping({ id: "dup", match: { path: "b" }, messageTemplate: "2" }),
    ]);
    const [warning] = logger.at("warn");
    expect(Object.keys(warning!.meta ?? {}).filter((name) => isCredentialName(name))).toEqual([]);
    expect(Object.values(warning!.meta ?? {})).toContainEqual(["hooks.mappings[0]", "hooks.mappings[1]"]);
  });

  test("presets come after configured mappings, in hooks.presets order", async () => {
    const other: HookPresetContribution = { ...alertPreset, name: "ops", mappings: [{ id: "ops-all", action: "wake", textTemplate: "ops" }] };
    const { engine } = engineWith([], { presets: ["ops", "alerts", "mail"] }, [alertPreset, other]);
    expect(engine.describe().map((d) => d.id)).toEqual(["ops-all", "alerts-path", "mail", "mail-source"]);
    expect(await matched(engine, "alerts")).toBe("ops-all");
  });

  test("an unknown preset fails start naming every available preset", () => {
    const run = () => engineWith([], { presets: ["mail", "jira"] }, [alertPreset, { ...alertPreset, name: "ops", pluginId: "ops-plugin" }]);
    expect(run).toThrow(ConfigError);
    expect(run).toThrow('hooks.presets[1] names an unknown preset "jira"; available presets: mail, github, alerts, ops');
  });

  test("this plugin's own manifest entries are not preset contributions", () => {
    const own: HookPresetContribution = { name: "selfish", pluginId: "inbound-webhooks", mappings: [{ id: "x", messageTemplate: "x" }] };
    expect(() => engineWith([], { presets: ["selfish"] }, [own])).toThrow(
      'hooks.presets[0] names an unknown preset "selfish"; available presets: mail, github',
    );
  });

  test("a preset offered by two plugins is refused when enabled", () => {
    expect(() => engineWith([], { presets: ["alerts"] }, [alertPreset, { ...alertPreset, pluginId: "copycat" }])).toThrow(
      'hooks.presets[0]: preset "alerts" is contributed by more than one plugin (alerts-plugin, copycat); disable all but one',
    );
  });

  test("invalid preset mappings fail start naming the preset and plugin", () => {
    const bad: HookPresetContribution = { name: "bad", pluginId: "bad-plugin", mappings: [{ id: "b", action: "shout", messageTemplate: "x" }] };
    expect(() => engineWith([], { presets: ["bad"] }, [bad])).toThrow(
      'Preset "bad" of plugin bad-plugin has invalid mappings: presets.bad.mappings[0].action must be one of: wake, agent',
    );
  });

  test("preset mapping ids default to <preset>-<n>", () => {
    const p: HookPresetContribution = {
      name: "ops",
      pluginId: "ops-plugin",
      mappings: [
        { match: { path: "a" }, messageTemplate: "x" },
        { match: { path: "b" }, messageTemplate: "y" },
      ],
    };
    expect(
      engineWith([], { presets: ["ops"] }, [p])
        .engine.describe()
        .map((d) => d.id),
    ).toEqual(["ops-1", "ops-2"]);
  });

  test("a template syntax error fails start naming the mapping key", () => {
    expect(() =>
      engineWith([mapping({ id: "m", messageTemplate: "ok" }), mapping({ id: "broken", sessionKey: "{{ payload.user ", messageTemplate: "x" })]),
    ).toThrow("hooks.mappings[1].sessionKey is not a valid template: unclosed '{{' at character 1");
  });

  test("every bad template, forEach, response and transform is named in one start (regression: only the first one was, a fix and restart per problem)", () => {
    const mappings = [
      mapping({ id: "a", match: { path: "a" }, messageTemplate: "{{ payload.x | nope }}" }),
      mapping({ id: "b", match: { path: "b" }, messageTemplate: "{{ payload.y", forEach: "a b" }),
      mapping({
        id: "c",
        match: { path: "c" },
        messageTemplate: "ok",
        name: "{{ oops",
        response: { status: 200, body: { a: "{{ bad" } },
        transform: { module: "missing.ts" },
      }),
    ];
    let error: unknown;
    try {
      engineWith(mappings, { presets: ["nosuch"] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.split("\n")).toEqual([
      'hooks.mappings[0].messageTemplate is not a valid template: unknown filter "nope" (available: default, json, truncate, lower, upper, trim) at character 1',
      "hooks.mappings[1].messageTemplate is not a valid template: unclosed '{{' at character 1",
      "hooks.mappings[1].forEach must be a payload path such as events or payload.entry[0].changes",
      "hooks.mappings[2].name is not a valid template: unclosed '{{' at character 1",
      `hooks.mappings[2].transform.module: "missing.ts" does not exist in hooks.transformsDir (${TRANSFORM_FIXTURES})`,
      "hooks.mappings[2].response.body.a is not a valid template: unclosed '{{' at character 1",
      'hooks.presets[0] names an unknown preset "nosuch"; available presets: mail, github',
    ]);
  });
});
