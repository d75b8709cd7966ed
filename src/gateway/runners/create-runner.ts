/** Builds the configured runner (`agents.runner.kind`). */
import type { RunnerConfig } from "../config/gateway-config";
import type { AgentRunner } from "./agent-runner";
import { createEchoRunner } from "./echo-runner";
import { createOpenAiRunner } from "./openai-runner";

export function createRunner(config: RunnerConfig, env: NodeJS.ProcessEnv = process.env): AgentRunner {
  if (config.kind === "openai") return createOpenAiRunner({ baseUrl: config.baseUrl, apiKeyEnv: config.apiKeyEnv, env });
  return createEchoRunner({ delayMs: config.delayMs });
}
