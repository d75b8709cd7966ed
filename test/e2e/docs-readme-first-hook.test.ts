/**
 * README.md "A first hook": its shell block, run as written (bash and curl, in the folder
 * of a demo gateway) against the real gateway process, each curl's status and body compared
 * with the `# → <status> <body>` line after it. In the doc's bodies `…` stands for any text
 * (ids, the rest of a run); the demo's address is the test gateway's and `<runId>` the id the
 * agent example answered.
 */
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { makeGatewayDir, REPO_ROOT } from "../helpers/gateway-process";
import { until } from "../helpers/until";
import { gatewayPerTest } from "./gateway-setup";

const README = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
const DOC_BASE = "http://127.0.0.1:18789";

interface Step {
  command: string;
  status: number;
  body: RegExp;
}

/** The ```sh block that reads the demo's token, cut into its setup line and one step per `# →` answer. */
function firstHookSteps(markdown: string): { setup: string; steps: Step[] } {
  const block = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.startsWith("TOKEN=$(cat .gateway/hook-token)"));
  expect(block).toBeDefined();
  const [setup, ...rest] = block!.split("\n");
  const steps: Step[] = [];
  let command = "";
  for (const line of rest) {
    const answer = /^# → (\d{3}) (.+)$/.exec(line);
    if (answer) {
      const pattern = answer[2]!
        .split("…")
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*");
      steps.push({ command: command.trim(), status: Number(answer[1]), body: new RegExp(`^${pattern}$`, "s") });
      command = "";
    } else command += `${line}\n`;
  }
  return { setup: setup!, steps };
}

describe("README.md: A first hook, run as written", () => {
  const gateway = gatewayPerTest();
  const { setup, steps } = firstHookSteps(README);

  it("finds the wake, agent and run-status examples", () => {
    expect(steps.map((s) => /\/hooks\/[a-z]+/.exec(s.command)![0])).toEqual(["/hooks/wake", "/hooks/agent", "/hooks/runs"]);
  });

  it("each example answers the status and body the README shows", async () => {
    const dir = makeGatewayDir("gw-readme-");
    const gw = await gateway.start({ dir, demo: true });
    const run = (command: string): { status: number; body: string } => {
      const script = `curl() { command curl -sS -w '\\n%{http_code}' "$@"; }\n${setup}\n${command.replaceAll(DOC_BASE, gw.baseUrl)}`;
      const out = execFileSync("bash", ["-c", script], { cwd: dir, encoding: "utf8", timeout: 20_000 });
      const cut = out.lastIndexOf("\n");
      return { status: Number(out.slice(cut + 1)), body: out.slice(0, cut) };
    };
    let runId = "";
    for (const step of steps) {
      let command = step.command;
      if (command.includes("<runId>")) {
        command = command.replace("<runId>", runId);
        await until(() => /"status":"succeeded"/.test(run(command).body), "the run of the README's agent example to succeed");
      }
      const answer = run(command);
      expect(answer).toEqual({ status: step.status, body: expect.stringMatching(step.body) });
      runId ||= (/"runId":"([^"]+)"/.exec(answer.body) ?? [])[1] ?? "";
    }
    expect(runId).not.toBe("");
  });
});
