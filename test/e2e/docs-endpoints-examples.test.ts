/**
 * The curl examples of docs/endpoints.md, run as written (bash and curl) against the
 * real gateway process, and each answer compared with the JSON the doc shows after it.
 * Values the doc can only show as examples are compared by form: a uuid is any uuid,
 * a time any ISO-8601 time, and a text with `…` (a model's words, which the echo runner
 * does not say) must start as the doc's does up to its first `: ` (`Hook CI: `).
 */
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { REPO_ROOT } from "../helpers/gateway-process";
import { until } from "../helpers/until";
import { HOOK_TOKEN, gatewayPerTest, hooksConfig } from "./gateway-setup";

const DOC = fs.readFileSync(path.join(REPO_ROOT, "docs", "endpoints.md"), "utf8");
/** The run id the doc's examples use: its agent example answers it and its run-status example reads it. */
const DOC_RUN_ID = "0b7d7c1e-8a3b-4c55-9a57-6f2d1f0f6a10";

interface Example {
  command: string;
  expected?: unknown;
}

/** Every ```sh block with a curl command, with the ```json block that directly follows it (if any). */
function examples(markdown: string): Example[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```(?:\s*```json\n([\s\S]*?)```)?/g)]
    .filter((m) => m[1]!.includes("curl "))
    .map((m) => ({ command: m[1]!, ...(m[2] !== undefined ? { expected: JSON.parse(m[2]) } : {}) }));
}

/** Runs a doc block with bash; each curl's answer is one line of the result. */
function runBlock(command: string, env: Record<string, string>): unknown[] {
  const script = `curl() { command curl "$@"; echo; }\n${command}`;
  const out = execFileSync("bash", ["-c", script], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 20_000 });
  return out
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as unknown);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The doc's JSON with its example values turned into matchers. */
function asMatcher(doc: unknown): unknown {
  if (typeof doc === "string") {
    if (UUID.test(doc)) return expect.stringMatching(UUID);
    if (ISO_TIME.test(doc)) return expect.stringMatching(ISO_TIME);
    if (doc.includes("…")) {
      const head = doc.includes(": ") ? doc.slice(0, doc.indexOf(": ") + 2) : doc.split("…")[0]!;
      return expect.stringMatching(new RegExp(`^${head.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    }
    return doc;
  }
  if (Array.isArray(doc)) return doc.map(asMatcher);
  if (doc !== null && typeof doc === "object") return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, asMatcher(v)]));
  return doc;
}

describe("docs/endpoints.md: the curl examples, run as written", () => {
  const gateway = gatewayPerTest();
  const found = examples(DOC);

  it("finds the wake, agent, invalid agent, mapped and run-status examples", () => {
    expect(found.map((e) => e.command.match(/\$GW\/hooks\/[a-z]+/)![0])).toEqual([
      "$GW/hooks/wake",
      "$GW/hooks/agent",
      "$GW/hooks/agent",
      "$GW/hooks/github",
      "$GW/hooks/runs",
    ]);
  });

  it("each example answers what the doc shows", async () => {
    const gw = await gateway.start({
      config: hooksConfig({
        hooks: { mappings: [{ id: "gh", match: { path: "github" }, action: "wake", textTemplate: "GitHub {{ payload.action }} #{{ number }}" }] },
        agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: "off" }, models: { "openai/gpt-4o": { alias: "gpt" } } } },
      }),
    });
    const env = { GW: gw.baseUrl, HOOK_TOKEN };
    let runId = "";
    for (const example of found) {
      let command = example.command;
      if (command.includes(`/hooks/runs/${DOC_RUN_ID}`)) {
        command = command.replace(DOC_RUN_ID, runId);
        await until(async () => {
          const [answer] = runBlock(command, env) as Array<{ run?: { status?: string } }>;
          return answer?.run?.status === "succeeded";
        }, "the run of the agent example to succeed");
      }
      const answers = runBlock(command, env);
      if (example.expected !== undefined) {
        expect(answers).toEqual([asMatcher(example.expected)]);
      } else {
        // The mapped examples (JSON and form-encoded with a payload field) show no answer: the same wake of mapping gh.
        expect(answers).toEqual(answers.map(() => ({ ok: true, mode: "now", mapping: "gh" })));
        expect(answers.length).toBe(2);
      }
      const accepted = answers[0] as { runId?: string };
      if (accepted.runId !== undefined && runId === "") runId = accepted.runId;
    }
    expect(runId).toMatch(UUID);
  });
});
