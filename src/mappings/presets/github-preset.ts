/**
 * The built-in `github` preset (SPEC §10), implemented in code: one mapping on
 * path `github`, verified with GitHub's scheme and `hooks.github.secret`. The
 * event (`X-GitHub-Event`) decides: `ping` → pong, the supported events → one
 * agent run each (message and session key from github-event.ts), anything else →
 * 204 unless listed in `hooks.github.events`. Redeliveries are deduplicated by
 * `X-GitHub-Delivery` (an idempotency header, src/intake/idempotency).
 */
import type { GithubConfig, HooksConfig } from "../../config/types";
import { GITHUB_DEFAULTS } from "../../config/rules";
import { ConfigError, ok } from "../../core/errors";
import type { RawAction } from "../../core/ports";
import type { CompiledMapping } from "../compiled-mapping";
import { defaultEvent } from "../event-name";
import { decideGithubEvent } from "./github/github-event";

export const GITHUB_PRESET_NAME = "github";
export const GITHUB_PRESET_DESCRIPTION =
  "GitHub webhooks (verified with hooks.github.secret): push, pull requests, issues, comments, reviews, releases, failed workflow runs, check suites.";

/** The problem of the `github` preset at `hooks.presets[index]` when `hooks.github.secret` is not given (one rule: start and the raw-config check). */
export function githubSecretProblem(github: { secret?: unknown } | undefined, index: number): string | undefined {
  return github?.secret === undefined ? `hooks.github.secret is required when hooks.presets includes "github" (hooks.presets[${index}])` : undefined;
}

/** The compiled mapping of the `github` preset; throws ConfigError without `hooks.github.secret`. */
export function createGithubPresetMappings(config: Pick<HooksConfig, "github">, index: number): CompiledMapping[] {
  const github: GithubConfig | undefined = config.github;
  if (github?.secret === undefined) throw new ConfigError(githubSecretProblem(github, index)!);
  const id = GITHUB_PRESET_NAME;
  return [
    {
      id,
      key: `hooks.presets "github" (${id})`,
      origin: { kind: "preset", preset: GITHUB_PRESET_NAME, pluginId: "inbound-webhooks", index: 0 },
      match: { path: GITHUB_PRESET_NAME },
      action: "agent",
      verify: { config: { scheme: "github", secret: github.secret }, key: "hooks.github", secretKey: "hooks.github.secret" },
      // The event is the github scheme's: X-GitHub-Event plus the body's action (pull_request.opened).
      event: (ctx) => defaultEvent("github", ctx),
      async build(ctx) {
        const decision = decideGithubEvent(ctx.headers["x-github-event"] ?? "", ctx.payload, github.events);
        if (decision.kind === "pong") return ok({ kind: "pong" as const, mappingId: id });
        if (decision.kind === "skip") return ok({ kind: "skip" as const, mappingId: id, reason: decision.reason });
        const raw: RawAction = {
          kind: "agent",
          message: decision.message,
          name: "GitHub",
          sessionKey: decision.sessionKey,
          deliver: github.deliver ?? GITHUB_DEFAULTS.deliver,
          channel: github.channel ?? GITHUB_DEFAULTS.channel,
        };
        if (github.to !== undefined) raw.to = github.to;
        if (github.model !== undefined) raw.model = github.model;
        if (github.thinking !== undefined) raw.thinking = github.thinking;
        if (github.agentId !== undefined) raw.agentId = github.agentId;
        return ok({ kind: "action" as const, mappingId: id, raw, allowUnsafeExternalContent: false });
      },
    },
  ];
}
