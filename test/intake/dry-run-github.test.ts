/**
 * The dry run of a verified path (issue 11): `gateway webhooks test github
 * --payload push.json --header "X-GitHub-Event: push"` shows the matched mapping
 * and the message, skips the signature and says so; ping and unhandled events
 * say what the hook would answer.
 */
import { dryRunHook } from "../../src/intake/dry-run";
import { formatDryRun } from "../../src/mappings/dry-run-report";
import { createMappingEngine } from "../../src/mappings/engine";
import { createFakeHost } from "../helpers/fake-host";
import { githubExample } from "../helpers/github-examples";
import { captureLogger, makeConfig } from "../mappings/helpers";

function setup() {
  const host = createFakeHost();
  const config = makeConfig({ presets: ["github"], github: { secret: { env: "NOT_READ_BY_A_DRY_RUN" }, events: [], deliver: true, channel: "last" } });
  const engine = createMappingEngine({ config, presets: [], logger: captureLogger() });
  const run = (event: string, payload: object) =>
    dryRunHook(
      { name: "github", body: Buffer.from(JSON.stringify(payload)), headers: { "x-github-event": event }, query: {} },
      { config, runtime: host.api.runtime, mappings: engine },
    );
  return { host, run };
}

describe("dry run of the github preset", () => {
  test("push: the mapping, the message and the skipped signature are shown; nothing is dispatched", async () => {
    const { host, run } = setup();
    const r = await run(
      "push",
      githubExample("push", (p) => (p.commits as unknown[]).length > 0),
    );
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.signature).toEqual({ scheme: "github", key: "hooks.github" });
    const text = formatDryRun(r.value);
    expect(text).toContain('Mapping:  github (hooks.presets "github" (github))');
    expect(text).toContain("Signature: github (hooks.github) — not checked in a dry run");
    expect(text).toContain("Session:  hook:github:Codertocat/Hello-World");
    expect(text).toContain("GitHub push to Codertocat/Hello-World: Codertocat pushed 1 commit to branch master.");
    expect([host.turns, host.systemEvents]).toEqual([[], []]);
  });

  test("ping says it would answer the pong without a run", async () => {
    const r = await setup().run("ping", githubExample("ping"));
    if (!r.ok) throw new Error(r.error.message);
    expect(formatDryRun(r.value)).toContain('Outcome:  pong — the hook would answer 200 {"ok":true,"pong":true} and start no run');
  });

  test("an unhandled event says why it would be skipped", async () => {
    const r = await setup().run("star", githubExample("star"));
    if (!r.ok) throw new Error(r.error.message);
    expect(formatDryRun(r.value)).toContain("Outcome:  skipped — event star is not handled (add it to hooks.github.events) (the hook would answer 204)");
  });
});
