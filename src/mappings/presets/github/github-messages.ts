/**
 * What the assistant reads for each GitHub event of the `github` preset
 * (SPEC §10): who did what, where, the key facts and the link, in a few short
 * lines. Each builder takes an untrusted payload and returns bounded text.
 */
import { plainObject as obj } from "../../../core/plain-object";
import { actor, arr, excerpt, num, oneLine, repoName, str, type Json } from "./payload-reader";

/** Most commits listed for one push; the rest are counted. */
export const MAX_COMMITS_LISTED = 10;
const TITLE = 200;
const BODY = 1000;
const LINE = 160;

const link = (url: unknown): string => {
  const u = str(url);
  return /^https:\/\/[^\s]+$/.test(u) && u.length <= 500 ? u : "";
};
const lines = (...ls: Array<string | false | undefined>): string => ls.filter((l): l is string => typeof l === "string" && l !== "").join("\n");
const bodyBlock = (label: string, text: unknown): string | false => {
  const t = excerpt(str(text), BODY);
  return t !== "" && `${label}:\n${t}`;
};

export function pushMessage(p: Json): string {
  const repo = repoName(p);
  const ref = str(p.ref);
  const branch = ref.startsWith("refs/heads/")
    ? `branch ${oneLine(ref.slice(11), LINE)}`
    : ref.startsWith("refs/tags/")
      ? `tag ${oneLine(ref.slice(10), LINE)}`
      : oneLine(ref, LINE);
  const who = oneLine(str(obj(p.pusher).name), 100) || actor(p);
  if (p.deleted === true) return lines(`GitHub push to ${repo}: ${who} deleted ${branch}.`, link(p.compare) && `Link: ${link(p.compare)}`);
  const commits = arr(p.commits).map(obj);
  const listed = commits.slice(0, MAX_COMMITS_LISTED).map((c) => {
    const sha = oneLine(str(c.id), 40).slice(0, 7);
    const author = oneLine(str(obj(c.author).name), 100);
    const first = oneLine(str(c.message).split("\n")[0] ?? "", LINE);
    return `- ${sha} ${first}${author ? ` (${author})` : ""}`;
  });
  const more = commits.length > MAX_COMMITS_LISTED ? `- … and ${commits.length - MAX_COMMITS_LISTED} more` : false;
  const what =
    commits.length === 0
      ? p.created === true
        ? `created ${branch}`
        : `pushed to ${branch} (no new commits)`
      : `pushed ${commits.length} commit${commits.length === 1 ? "" : "s"} to ${branch}${p.forced === true ? " (force-push)" : ""}`;
  return lines(`GitHub push to ${repo}: ${who} ${what}.`, ...listed, more || undefined, link(p.compare) && `Compare: ${link(p.compare)}`);
}

export function pullRequestMessage(p: Json): string {
  const pr = obj(p.pull_request);
  const action = oneLine(str(p.action), 40);
  const state = action === "closed" ? (pr.merged === true ? "merged" : "closed without merging") : action;
  const branches = str(obj(pr.head).ref) && `${oneLine(str(obj(pr.head).ref), LINE)} → ${oneLine(str(obj(pr.base).ref), LINE)}`;
  return lines(
    `GitHub pull request #${num(p.number) ?? num(pr.number) ?? "?"} in ${repoName(p)} ${state} by ${actor(p)}${pr.draft === true ? " (draft)" : ""}.`,
    `Title: ${oneLine(str(pr.title), TITLE)}`,
    branches && `Branches: ${branches}`,
    bodyBlock("Description", pr.body),
    link(pr.html_url) && `Link: ${link(pr.html_url)}`,
  );
}

export function issuesMessage(p: Json): string {
  const issue = obj(p.issue);
  const labels = arr(issue.labels)
    .map((l) => oneLine(str(obj(l).name), 50))
    .filter(Boolean)
    .slice(0, 10);
  return lines(
    `GitHub issue #${num(issue.number) ?? "?"} in ${repoName(p)} ${oneLine(str(p.action), 40)} by ${actor(p)}.`,
    `Title: ${oneLine(str(issue.title), TITLE)}`,
    labels.length > 0 && `Labels: ${labels.join(", ")}`,
    bodyBlock("Body", issue.body),
    link(issue.html_url) && `Link: ${link(issue.html_url)}`,
  );
}

export function issueCommentMessage(p: Json): string {
  const issue = obj(p.issue);
  const comment = obj(p.comment);
  const kind = issue.pull_request !== undefined ? "pull request" : "issue";
  return lines(
    `GitHub comment ${oneLine(str(p.action), 40)} by ${actor(p)} on ${kind} #${num(issue.number) ?? "?"} in ${repoName(p)}.`,
    `Title: ${oneLine(str(issue.title), TITLE)}`,
    bodyBlock("Comment", comment.body),
    link(comment.html_url) && `Link: ${link(comment.html_url)}`,
  );
}

export function pullRequestReviewMessage(p: Json): string {
  const review = obj(p.review);
  const pr = obj(p.pull_request);
  const state = oneLine(str(review.state), 40).toLowerCase().replace(/_/g, " ");
  return lines(
    `GitHub review ${oneLine(str(p.action), 40)} on pull request #${num(pr.number) ?? "?"} in ${repoName(p)} by ${actor(p)}${state ? `: ${state}` : ""}.`,
    `Title: ${oneLine(str(pr.title), TITLE)}`,
    bodyBlock("Review", review.body),
    link(review.html_url) && `Link: ${link(review.html_url)}`,
  );
}

export function releaseMessage(p: Json): string {
  const release = obj(p.release);
  const tag = oneLine(str(release.tag_name), LINE);
  const name = oneLine(str(release.name), TITLE);
  return lines(
    `GitHub release ${tag}${name && name !== tag ? ` "${name}"` : ""} in ${repoName(p)} ${oneLine(str(p.action), 40)} by ${actor(p)}${release.prerelease === true ? " (pre-release)" : ""}.`,
    bodyBlock("Notes", release.body),
    link(release.html_url) && `Link: ${link(release.html_url)}`,
  );
}

export function workflowRunMessage(p: Json): string {
  const run = obj(p.workflow_run);
  const branch = oneLine(str(run.head_branch), LINE);
  const name = oneLine(str(run.name) || str(obj(p.workflow).name), TITLE);
  return lines(
    `GitHub Actions workflow${name ? ` "${name}"` : ""} ${oneLine(str(run.conclusion) || str(run.status), 40)} in ${repoName(p)}${branch ? ` on ${branch}` : ""} (run #${num(run.run_number) ?? "?"}, triggered by ${oneLine(str(run.event), 40) || "?"}).`,
    str(run.display_title) && `Commit: ${oneLine(str(run.display_title), TITLE)} (${oneLine(str(run.head_sha), 40).slice(0, 7)})`,
    `Actor: ${oneLine(str(obj(run.actor).login), 100) || actor(p)}`,
    link(run.html_url) && `Link: ${link(run.html_url)}`,
  );
}

export function checkSuiteMessage(p: Json): string {
  const suite = obj(p.check_suite);
  const sha = oneLine(str(suite.head_sha), 40);
  const repoUrl = link(obj(p.repository).html_url);
  return lines(
    `GitHub check suite ${oneLine(str(p.action), 40)} in ${repoName(p)}${str(suite.head_branch) ? ` on ${oneLine(str(suite.head_branch), LINE)}` : ""}: ${oneLine(str(suite.conclusion) || str(suite.status), 40) || "no conclusion yet"}.`,
    str(obj(suite.app).name) && `App: ${oneLine(str(obj(suite.app).name), 100)}`,
    repoUrl && /^[0-9a-f]{7,40}$/.test(sha) && `Link: ${repoUrl}/commit/${sha}/checks`,
  );
}

/** Any event listed in `hooks.github.events` without a builder of its own. */
export function genericMessage(event: string, p: Json): string {
  const action = oneLine(str(p.action), 40);
  return lines(`GitHub ${oneLine(event, 60)}${action ? ` (${action})` : ""} in ${repoName(p) || "an unknown repository"} by ${actor(p)}.`);
}
