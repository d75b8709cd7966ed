/**
 * The examples in docs/mappings.md and docs/presets.md are real: the first
 * mapping resolves through the config schema and renders what the docs say, the
 * TypeScript and JavaScript transforms load and behave as described, the filter
 * table's results hold, and the preset plugin manifest compiles.
 */
import fs from "node:fs";
import path from "node:path";
import { resolveConfig } from "../../src/config/resolve";
import { createMappingEngine } from "../../src/mappings/engine";
import { compileTemplate } from "../../src/mappings/templates/compile-template";
import type { HookPresetContribution } from "../../src/host-contract/host-api";
import { captureLogger, hookInput, makeConfig, mapping, readPayload, tempDir } from "./helpers";

const DOCS = path.resolve(__dirname, "../../docs");
const mappingsDoc = fs.readFileSync(path.join(DOCS, "mappings.md"), "utf8");
const presetsDoc = fs.readFileSync(path.join(DOCS, "presets.md"), "utf8");
const push = readPayload("github-push.json");

function blocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);
}

async function actionOf(engine: ReturnType<typeof createMappingEngine>, input: Parameters<typeof hookInput>) {
  const r = await engine.resolve(hookInput(...input));
  if (!r.ok) throw new Error(r.error.code);
  return r.value;
}

describe("docs/mappings.md examples", () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("the first mapping is valid config and renders the documented session key", async () => {
    const config = resolveConfig(JSON.parse(blocks(mappingsDoc, "json")[0]), { configDir: dir, env: { HOOKS_TOKEN: "hk_3f9a1c7e5b2d4f60a8c1" } });
    const engine = createMappingEngine({ config, presets: [], logger: captureLogger(), configDir: dir });
    const out = await actionOf(engine, ["github", push, { headers: { "x-github-event": "push" } }]);
    expect(out.kind === "action" && out.raw).toMatchObject({
      kind: "agent",
      name: "GitHub",
      sessionKey: "hook:github:ada-lab/garden-sensors",
      deliver: true,
      channel: "last",
    });
  });

  test("the TypeScript transform skips tests, turns refunds into a wake and orders into a run", async () => {
    fs.mkdirSync(path.join(dir, "shop"));
    fs.writeFileSync(path.join(dir, "shop", "order.ts"), blocks(mappingsDoc, "ts")[0]);
    const engine = createMappingEngine({
      config: makeConfig({
        transformsDir: dir,
        mappings: [mapping({ id: "shop", match: { path: "shop" }, transform: { module: "shop/order.ts", export: "onOrder" } })],
      }),
      presets: [],
      logger: captureLogger(),
    });
    expect(await actionOf(engine, ["shop", { id: "o-1", status: "test" }])).toEqual({ kind: "skip", mappingId: "shop" });
    const refund = await actionOf(engine, ["shop", { id: "o-2", status: "refunded", total: 5, currency: "EUR" }]);
    expect(refund.kind === "action" && refund.raw).toEqual({ kind: "wake", mode: "next-heartbeat", text: "Order o-2 was refunded." });
    const paid = await actionOf(engine, ["shop", { id: "o-3", status: "paid", total: 42.5, currency: "EUR", customer: { name: "Ada" } }]);
    expect(paid.kind === "action" && paid.raw).toEqual({
      kind: "agent",
      name: "Shop",
      sessionKey: "hook:shop:o-3",
      message: "New order o-3 from Ada: 42.5 EUR. Check stock and draft a thank-you note.",
    });
  });

  test("the JavaScript transform summarises a push", async () => {
    fs.writeFileSync(path.join(dir, "github.js"), blocks(mappingsDoc, "js")[0]);
    const engine = createMappingEngine({
      config: makeConfig({ transformsDir: dir, mappings: [mapping({ id: "gh", transform: { module: "github.js" } })] }),
      presets: [],
      logger: captureLogger(),
    });
    const out = await actionOf(engine, ["github", push, { headers: { "x-github-event": "push" } }]);
    expect(out.kind === "action" && out.raw).toEqual({
      kind: "agent",
      name: "github",
      sessionKey: "hook:github:ada-lab/garden-sensors",
      message: "2 commit(s) on refs/heads/main:\n- Calibrate soil moisture sensor offsets\n- Add weekly watering report",
    });
  });

  test("the filter table's example results hold", () => {
    const ctx = {
      path: "github",
      now: "2025-03-14T09:30:00.000Z",
      headers: {},
      query: {},
      payload: { ...push, title: "Add weekly watering report", severity: "critical", text: "  " },
    };
    const rows: Array<[string, string]> = [
      ['{{ payload.assignee.login | default: "nobody" }}', "nobody"],
      ["{{ head_commit.added | json }}", '["reports/weekly.py"]'],
      ["{{ head_commit.message | truncate: 10 }}", "Add weekly…"],
      ['{{ title | truncate: 3, "..." }}', "Add..."],
      ["{{ severity | upper }}", "CRITICAL"],
      ['{{ text | trim | default: "(empty)" }}', "(empty)"],
    ];
    for (const [tpl, expected] of rows) {
      expect(mappingsDoc).toContain(tpl.replace(/\|/g, "\\|"));
      expect(compileTemplate(tpl).render(ctx)).toBe(expected);
    }
  });
});

describe("docs/presets.md examples", () => {
  test("the preset plugin manifest's preset compiles and matches its path", async () => {
    const manifest = JSON.parse(blocks(presetsDoc, "json").find((b) => b.includes('"contributes"')) as string) as {
      id: string;
      contributes: { presets: Array<Omit<HookPresetContribution, "pluginId">> };
    };
    const dir = tempDir();
    try {
      fs.writeFileSync(path.join(dir, "my-sender.ts"), "export default () => ({ message: 'from my sender' });\n");
      const presets = manifest.contributes.presets.map((p) => ({ ...p, pluginId: manifest.id, transformsDir: dir }));
      const engine = createMappingEngine({ config: makeConfig({ presets: ["my-sender"] }), presets, logger: captureLogger() });
      const out = await actionOf(engine, ["my-sender", {}]);
      expect(out.kind === "action" && out.raw).toEqual({ kind: "agent", name: "My Sender", message: "from my sender" });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the mail payload example is a valid push", async () => {
    const payload = JSON.parse(blocks(presetsDoc, "json").find((b) => b.includes('"messages"')) as string) as Record<string, unknown>;
    const engine = createMappingEngine({ config: makeConfig({ presets: ["mail"] }), presets: [], logger: captureLogger() });
    const out = await actionOf(engine, ["mail", payload]);
    expect(out.kind === "action" && out.raw.sessionKey).toBe("hook:mail:CAF3x9k2Zp1qW7v@mail.example.org");
  });
});
