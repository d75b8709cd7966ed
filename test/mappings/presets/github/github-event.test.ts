/**
 * The `github` preset's decision per delivery, on GitHub's own example payloads
 * (@octokit/webhooks-examples).
 */
import examples from "@octokit/webhooks-examples";
import { decideGithubEvent, githubSessionKey, MAX_MESSAGE_CHARS } from "../../../../src/mappings/presets/github/github-event";
import { MAX_COMMITS_LISTED } from "../../../../src/mappings/presets/github/github-messages";

type Payload = Record<string, unknown>;
const all = examples as unknown as Array<{ name: string; examples: Payload[] }>;
const examplesOf = (event: string): Payload[] => all.find((e) => e.name === event)!.examples;
const exampleOf = (event: string, pred: (p: Payload) => boolean = () => true): Payload => {
  const hit = examplesOf(event).find(pred);
  if (!hit) throw new Error(`no ${event} example matches`);
  return structuredClone(hit);
};
const action = (a: string) => (p: Payload) => p.action === a;
const runOf = (event: string, p: Payload) => {
  const d = decideGithubEvent(event, p);
  if (d.kind !== "run") throw new Error(`expected a run, got ${JSON.stringify(d)}`);
  return d;
};

describe("decideGithubEvent", () => {
  it("ping → pong, no run", () => {
    expect(decideGithubEvent("ping", exampleOf("ping"))).toEqual({ kind: "pong" });
  });

  it("push with a commit: who, branch, the commit's first line and the compare link", () => {
    const p = exampleOf("push", (x) => (x.commits as unknown[]).length > 0);
    const d = runOf("push", p);
    expect(d.sessionKey).toBe("hook:github:Codertocat/Hello-World");
    expect(d.message).toMatch(/^GitHub push to Codertocat\/Hello-World: Codertocat pushed 1 commit to branch master\.\n- [0-9a-f]{7} /);
    expect(d.message).toContain(`Compare: ${p.compare as string}`);
  });

  it("push of many commits lists the first ten and counts the rest", () => {
    const p = exampleOf("push", (x) => (x.commits as unknown[]).length > 0);
    const commit = (p.commits as Payload[])[0]!;
    p.commits = Array.from({ length: 14 }, (_, i) => ({ ...commit, id: `${i}`.padStart(40, "a"), message: `change ${i}\n\nlong body` }));
    const d = runOf("push", p);
    expect(d.message.split("\n").filter((l) => l.startsWith("- ") && !l.startsWith("- …"))).toHaveLength(MAX_COMMITS_LISTED);
    expect(d.message).toContain("- … and 4 more");
    expect(d.message).not.toContain("long body");
  });

  it("push that deletes a tag says so", () => {
    expect(
      runOf(
        "push",
        exampleOf("push", (x) => x.deleted === true),
      ).message,
    ).toMatch(/^GitHub push to Codertocat\/Hello-World: Codertocat deleted tag simple-tag\./);
  });

  it("issues.opened: number, title, body excerpt, link; session key per issue", () => {
    const p = exampleOf("issues", action("opened"));
    const issue = p.issue as Payload;
    const d = runOf("issues", p);
    expect(d.sessionKey).toBe(`hook:github:Codertocat/Hello-World#${issue.number as number}`);
    expect(d.message).toContain(`GitHub issue #${issue.number as number} in Codertocat/Hello-World opened by Codertocat.`);
    expect(d.message).toContain(`Title: ${issue.title as string}`);
    expect(d.message).toContain(`Link: ${issue.html_url as string}`);
  });

  it("pull_request.opened: title, branches, link; one session per pull request", () => {
    const p = exampleOf("pull_request", action("opened"));
    const pr = p.pull_request as Payload;
    const d = runOf("pull_request", p);
    expect(d.sessionKey).toBe(`hook:github:Codertocat/Hello-World#${p.number as number}`);
    expect(d.message).toContain(`GitHub pull request #${p.number as number} in Codertocat/Hello-World opened by Codertocat.`);
    expect(d.message).toContain(`Title: ${pr.title as string}`);
    expect(d.message).toContain(`Branches: ${(pr.head as Payload).ref as string} → ${(pr.base as Payload).ref as string}`);
    expect(d.message).toContain(`Link: ${pr.html_url as string}`);
  });

  it("a comment and a review on the same pull request share its session with the pull request events", () => {
    const pr = exampleOf("pull_request", action("opened"));
    const review = exampleOf("pull_request_review");
    expect(githubSessionKey("pull_request_review", review)).toBe(`hook:github:Codertocat/Hello-World#${(review.pull_request as Payload).number as number}`);
    expect(githubSessionKey("pull_request", pr)).toMatch(/^hook:github:Codertocat\/Hello-World#\d+$/);
    const comment = exampleOf("issue_comment", action("created"));
    expect(githubSessionKey("issue_comment", comment)).toBe(`hook:github:Codertocat/Hello-World#${(comment.issue as Payload).number as number}`);
    expect(runOf("issue_comment", comment).message).toContain(`Comment:\n${((comment.comment as Payload).body as string).trim()}`);
  });

  it("release.published: tag and link", () => {
    const p = exampleOf("release", action("published"));
    const d = runOf("release", p);
    expect(d.message).toMatch(/^GitHub release 0\.0\.1 in Codertocat\/Hello-World published by Codertocat/);
    expect(d.sessionKey).toBe("hook:github:Codertocat/Hello-World");
  });

  it("workflow_run: a completed run with conclusion failure runs the agent; success and requested are skipped", () => {
    const success = exampleOf("workflow_run", (x) => x.action === "completed" && (x.workflow_run as Payload).conclusion === "success");
    expect(decideGithubEvent("workflow_run", success)).toMatchObject({ kind: "skip" });
    expect(decideGithubEvent("workflow_run", exampleOf("workflow_run", action("requested")))).toMatchObject({ kind: "skip" });
    // GitHub's examples have no failed run: the same delivery with the conclusion GitHub sends for one.
    (success.workflow_run as Payload).conclusion = "failure";
    const d = runOf("workflow_run", success);
    expect(d.message).toMatch(/^GitHub Actions workflow( ".+")? failure in octo-org\/octo-repo on master \(run #163, triggered by repository_dispatch\)\./);
    expect(d.message).toContain(`Link: ${(success.workflow_run as Payload).html_url as string}`);
  });

  it("check_suite.completed: conclusion and app", () => {
    const d = runOf("check_suite", exampleOf("check_suite", action("completed")));
    expect(d.message).toMatch(/^GitHub check suite completed in Codertocat\/Hello-World on changes: success\./);
  });

  it("an unlisted event is skipped; listed in hooks.github.events it runs with a generic message", () => {
    const star = exampleOf("star");
    expect(decideGithubEvent("star", star)).toEqual({ kind: "skip", reason: "event star is not handled (add it to hooks.github.events)" });
    const d = decideGithubEvent("star", star, ["star"]);
    expect(d).toMatchObject({ kind: "run", sessionKey: "hook:github:Codertocat/Hello-World" });
  });

  it("a hostile payload (1 MB title and body, 5,000 commits) gives a bounded message", () => {
    const p = exampleOf("issues", action("opened"));
    (p.issue as Payload).title = "T".repeat(1_000_000);
    (p.issue as Payload).body = "B\n".repeat(500_000);
    const d = runOf("issues", p);
    expect(d.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    const push = exampleOf("push", (x) => (x.commits as unknown[]).length > 0);
    push.commits = Array.from({ length: 5000 }, () => (push.commits as Payload[])[0]);
    expect(runOf("push", push).message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
  });

  it("a payload with missing or mistyped fields still gives a message, never a throw", () => {
    for (const event of ["push", "pull_request", "issues", "issue_comment", "pull_request_review", "release", "check_suite"]) {
      expect(decideGithubEvent(event, { repository: 42, sender: "x", commits: "no", issue: [], pull_request: null })).toMatchObject({ kind: "run" });
    }
  });

  it("every example of every supported event gives a message or a skip", () => {
    for (const event of ["push", "pull_request", "issues", "issue_comment", "pull_request_review", "release", "workflow_run", "check_suite"]) {
      for (const p of examplesOf(event)) {
        const d = decideGithubEvent(event, structuredClone(p));
        expect(["run", "skip"]).toContain(d.kind);
        if (d.kind === "run") expect(d.message).toMatch(/^GitHub /);
      }
    }
  });
});
