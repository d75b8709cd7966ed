/**
 * The decision of the `github` preset for one delivery (SPEC §10): `ping` gets a
 * pong and no run; the supported events become one agent run each, with a message
 * for the assistant and a session key per repository (and per issue or pull
 * request, so one conversation follows one PR); `workflow_run` only when a run
 * completed unsuccessfully; any other event is skipped (204) unless listed in
 * `hooks.github.events`.
 */
import {
  checkSuiteMessage,
  genericMessage,
  issueCommentMessage,
  issuesMessage,
  pullRequestMessage,
  pullRequestReviewMessage,
  pushMessage,
  releaseMessage,
  workflowRunMessage,
} from "./github-messages";
import { plainObject as obj } from "../../../core/plain-object";
import { num, repoName, str, type Json } from "./payload-reader";

export type GithubDecision = { kind: "pong" } | { kind: "skip"; reason: string } | { kind: "run"; message: string; sessionKey: string };

/** Conclusions of a completed workflow run that are reported by default. */
export const FAILED_CONCLUSIONS: ReadonlySet<string> = new Set(["failure", "timed_out", "startup_failure"]);

/** Every message is cut here, whatever the payload (the builders bound each part already). */
export const MAX_MESSAGE_CHARS = 6000;

const BUILDERS: Record<string, (p: Json) => string> = {
  push: pushMessage,
  pull_request: pullRequestMessage,
  issues: issuesMessage,
  issue_comment: issueCommentMessage,
  pull_request_review: pullRequestReviewMessage,
  release: releaseMessage,
  workflow_run: workflowRunMessage,
  check_suite: checkSuiteMessage,
};

/** Events the preset turns into runs without configuration. */
export const GITHUB_DEFAULT_EVENTS: readonly string[] = Object.keys(BUILDERS);

/** `hook:github:<owner>/<repo>#<n>` for issues and pull requests, else `hook:github:<owner>/<repo>`. */
export function githubSessionKey(event: string, p: Json): string {
  const repo = repoName(p) || "unknown";
  const n =
    event === "issues" || event === "issue_comment"
      ? num(obj(p.issue).number)
      : event === "pull_request" || event === "pull_request_review"
        ? (num(p.number) ?? num(obj(p.pull_request).number))
        : undefined;
  return n === undefined ? `hook:github:${repo}` : `hook:github:${repo}#${n}`;
}

/** `extraEvents`: `hooks.github.events`, names of further events to run (generic message). */
export function decideGithubEvent(event: string, payload: Json, extraEvents: readonly string[] = []): GithubDecision {
  if (event === "ping") return { kind: "pong" };
  // Own entries only: the event is the sender's header, and "toString" or "__proto__" must not find Object.prototype's.
  const builder =
    (Object.hasOwn(BUILDERS, event) ? BUILDERS[event] : undefined) ?? (extraEvents.includes(event) ? (p: Json) => genericMessage(event, p) : undefined);
  if (!builder) return { kind: "skip", reason: event === "" ? "no X-GitHub-Event header" : `event ${event} is not handled (add it to hooks.github.events)` };
  if (event === "workflow_run" && !extraEvents.includes("workflow_run")) {
    const run = obj(payload.workflow_run);
    if (str(payload.action) !== "completed" || !FAILED_CONCLUSIONS.has(str(run.conclusion))) {
      return { kind: "skip", reason: "workflow_run is reported only when a run completed unsuccessfully" };
    }
  }
  const text = builder(payload);
  const message =
    Array.from(text).length > MAX_MESSAGE_CHARS
      ? `${Array.from(text)
          .slice(0, MAX_MESSAGE_CHARS - 1)
          .join("")}…`
      : text;
  return { kind: "run", message, sessionKey: githubSessionKey(event, payload) };
}
