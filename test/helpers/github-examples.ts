/** GitHub's own example payloads (@octokit/webhooks-examples), by event name. */
import examples from "@octokit/webhooks-examples";

export type GithubPayload = Record<string, unknown>;
const all = examples as unknown as Array<{ name: string; examples: GithubPayload[] }>;

/** A copy of the first example of `event` that `pred` accepts. */
export function githubExample(event: string, pred: (p: GithubPayload) => boolean = () => true): GithubPayload {
  const hit = all.find((e) => e.name === event)?.examples.find(pred);
  if (!hit) throw new Error(`no ${event} example matches`);
  return structuredClone(hit);
}
