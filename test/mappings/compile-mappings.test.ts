/**
 * compileMappings names every problem of the mappings in one ConfigError (docs/configuration.md:
 * "every problem at once"). A mapping on a reserved read route (`runs`, `deliveries/…`) was checked
 * only once every other problem was gone, and only the first such mapping was named.
 */
import { ConfigError } from "../../src/core/errors";
import { compileMappings } from "../../src/mappings/compile-mappings";
import { captureLogger, makeConfig, mapping } from "./helpers";

function problemsOf(mappings: Parameters<typeof mapping>[0][]): string[] {
  try {
    compileMappings(makeConfig({ mappings: mappings.map(mapping) }), { presets: [], logger: captureLogger() });
  } catch (e) {
    if (e instanceof ConfigError) return e.message.split("\n");
    throw e;
  }
  return [];
}

describe("compileMappings: mappings on reserved paths", () => {
  it("names every mapping on a reserved path, beside a bad template, in one start (was: only the template, then only the first reserved path)", () => {
    const lines = problemsOf([
      { id: "bad", match: { path: "fine" }, action: "wake", textTemplate: "{{ unclosed" },
      { id: "r", match: { path: "runs" }, action: "wake", textTemplate: "t" },
      { id: "d", match: { path: "deliveries/x" }, action: "wake", textTemplate: "t" },
    ]);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^hooks\.mappings\[0\]\.textTemplate is not a valid template/);
    expect(lines.slice(1)).toEqual([
      'hooks.mappings[1].match.path "runs" is reserved: /hooks/runs and /hooks/deliveries are the run and delivery-ledger routes; choose another path',
      'hooks.mappings[2].match.path "deliveries/x" is reserved: /hooks/runs and /hooks/deliveries are the run and delivery-ledger routes; choose another path',
    ]);
  });

  it("a config without such problems compiles", () => {
    expect(problemsOf([{ id: "ok", match: { path: "runsX" }, action: "wake", textTemplate: "t" }])).toEqual([]);
  });
});
