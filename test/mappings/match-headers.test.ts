/**
 * `match.headers` (SPEC §6.1): every named header must equal one of its values;
 * works with match.path and match.source; shadowing takes it into account; the
 * list printed by the dry run shows it.
 */
import { createMappingEngine } from "../../src/mappings/engine";
import { formatMappingList } from "../../src/mappings/dry-run-report";
import { captureLogger, fixedClock, hookInput, makeConfig, mapping } from "./helpers";

const gh = (event: string | undefined, payload: Record<string, unknown> = {}) =>
  hookInput("github", payload, { headers: { "content-type": "application/json", ...(event === undefined ? {} : { "x-github-event": event }) } });

function engineWith(mappings: ReturnType<typeof mapping>[]) {
  const logger = captureLogger();
  return { engine: createMappingEngine({ config: makeConfig({ mappings }), presets: [], logger, clock: fixedClock }), logger };
}

async function matchedId(engine: ReturnType<typeof createMappingEngine>, input: ReturnType<typeof gh>): Promise<string | undefined> {
  const r = await engine.resolve(input);
  if (!r.ok) throw new Error(r.error.code);
  return r.value.kind === "no_match" ? undefined : r.value.mappingId;
}

describe("match.headers", () => {
  const pushOrRelease = mapping({ id: "code", match: { path: "github", headers: { "x-github-event": ["push", "release"] } }, messageTemplate: "code" });
  const issues = mapping({ id: "issues", match: { path: "github", headers: { "x-github-event": ["issues"] } }, messageTemplate: "issue" });

  test("a request matches when the header equals one of the listed values", async () => {
    const { engine } = engineWith([pushOrRelease, issues]);
    expect(await matchedId(engine, gh("push"))).toBe("code");
    expect(await matchedId(engine, gh("release"))).toBe("code");
    expect(await matchedId(engine, gh("issues"))).toBe("issues");
  });

  test("a missing header, another value or another case does not match", async () => {
    const { engine } = engineWith([pushOrRelease]);
    expect(await matchedId(engine, gh(undefined))).toBeUndefined();
    expect(await matchedId(engine, gh("ping"))).toBeUndefined();
    expect(await matchedId(engine, gh("Push"))).toBeUndefined();
  });

  test("every named header must match, and match.path still has to hold", async () => {
    const both = mapping({ id: "both", match: { path: "github", headers: { "x-github-event": ["push"], "x-tenant": ["a"] } }, messageTemplate: "x" });
    const { engine } = engineWith([both]);
    const headers = { "x-github-event": "push", "x-tenant": "a" };
    expect(await matchedId(engine, hookInput("github", {}, { headers }))).toBe("both");
    expect(await matchedId(engine, hookInput("github", {}, { headers: { ...headers, "x-tenant": "b" } }))).toBeUndefined();
    expect(await matchedId(engine, hookInput("gitlab", {}, { headers }))).toBeUndefined();
  });

  test("works with match.source", async () => {
    const m = mapping({ id: "crm-created", match: { source: "crm", headers: { "x-kind": ["created"] } }, messageTemplate: "x" });
    const { engine } = engineWith([m]);
    expect(await matchedId(engine, hookInput("ingest", { source: "crm" }, { headers: { "x-kind": "created" } }))).toBe("crm-created");
    expect(await matchedId(engine, hookInput("ingest", { source: "other" }, { headers: { "x-kind": "created" } }))).toBeUndefined();
  });

  test("a mapping that needs a header does not shadow a later one on the same path; a narrower later one is reported", () => {
    const catchPath = mapping({ id: "rest", match: { path: "github" }, messageTemplate: "rest" });
    const { logger } = engineWith([
      pushOrRelease,
      catchPath,
      mapping({ id: "push-only", match: { path: "github", headers: { "x-github-event": ["push"] } }, messageTemplate: "p" }),
    ]);
    const warnings = logger.at("warn").map((l) => l.message);
    expect(warnings.some((w) => w.includes('"rest"'))).toBe(false);
    expect(warnings).toContainEqual(expect.stringContaining('mapping "push-only" (hooks.mappings[2]) can never match: it is shadowed by mapping "code"'));
  });

  test("the mapping list of the dry run shows the header condition", () => {
    const { engine } = engineWith([pushOrRelease, issues]);
    expect(formatMappingList(engine.describe())).toContain('code (hooks.mappings[0]): path "github" and x-github-event one of "push", "release", agent');
    expect(formatMappingList(engine.describe())).toContain('issues (hooks.mappings[1]): path "github" and x-github-event "issues", agent');
  });
});
