/**
 * The JSON examples in docs/configuration.md are real: each resolves, and its
 * `hooks` section passes plugin.json's JSON Schema.
 */
import fs from "node:fs";
import path from "node:path";
import { resolveConfig, resolveHooksSecrets } from "../../src/config/resolve";
import { compilePluginConfigSchema } from "../../src/config/json-schema/plugin-config-schema";

const DOC = path.resolve(__dirname, "../../docs/configuration.md");
const FIXTURES = path.resolve(__dirname, "../fixtures/config");

function jsonBlocks(markdown: string): Array<Record<string, unknown>> {
  return [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]) as Record<string, unknown>);
}

describe("docs/configuration.md examples", () => {
  const blocks = jsonBlocks(fs.readFileSync(DOC, "utf8"));
  const validate = compilePluginConfigSchema();

  it("has the minimal and the full example", () => {
    expect(blocks.length).toBe(2);
  });

  it.each(blocks.map((b, i) => [i, b] as const))("example %d resolves and passes the JSON Schema", (_i, config) => {
    const env = { HOOK_TOKEN: "hk_3f9a1c7e5b2d4f60a8c1", GATEWAY_TOKEN: "gw_0123456789abcdef", IMAP_PASSWORD: "x" };
    const resolved = resolveHooksSecrets(resolveConfig(config, { configDir: FIXTURES, env }), { configDir: FIXTURES, env });
    expect(resolved.enabled).toBe(true);
    expect(resolved.token.length).toBeGreaterThanOrEqual(16);
    expect(validate(config.hooks)).toBe(true);
  });
});
