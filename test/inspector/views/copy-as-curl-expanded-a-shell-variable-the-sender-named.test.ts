/**
 * Regression: "Copy as curl" turned every `[REDACTED]` of a stored header into a shell
 * variable named after the header, `"${<HEADER NAME>}"`. A sender sent
 * `slack-webhook-url: [REDACTED]` (a name with no credential word, so the ledger keeps
 * what is sent); the operator pasted the command with HOOK_TOKEN exported, as the page
 * says, and the shell filled in the operator's own $SLACK_WEBHOOK_URL, which the gateway
 * recorded and the sender read back. A sender's `hook-token: [REDACTED]` became
 * `${HOOK_TOKEN}` in a header of the sender's naming. Now the one variable the command
 * expands is HOOK_TOKEN, and only where the hooks read the hook token (Authorization,
 * x-service-token, `?token=`); every other `[REDACTED]` is sent as that literal text.
 */
import { execFileSync } from "node:child_process";
import { curlCommand } from "../../../src/inspector/views/curl-command";
import { delivery } from "../../helpers/fake-inspector";

const d = delivery({
  url: "/hooks/github?token=[REDACTED]&aws_secret=[REDACTED]&note=[REDACTED]",
  headers: {
    authorization: "[REDACTED]",
    "slack-webhook-url": "[REDACTED]",
    "hook-token": "[REDACTED]",
    "x-hub-signature-256": "[REDACTED]",
    "x-forwarded-authorization": "Bearer [REDACTED]",
    path: "a[REDACTED]b",
  },
  body: "[REDACTED] ${SLACK_WEBHOOK_URL}",
});
/** The command with `curl` replaced by a printf of each word, NUL-terminated. */
const printing = curlCommand(d, "http://h").replace(/^curl /, "printf '%s\\0' ");
const operatorShell = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOOK_TOKEN: "tok",
  SLACK_WEBHOOK_URL: "https://hooks.slack.example/operator-own-secret",
  X_HUB_SIGNATURE_256: "operator-own-signature",
  AWS_SECRET: "operator-own-aws-secret",
};

describe("Copy as curl with a [REDACTED] value in a header the sender named", () => {
  it("expands no variable but HOOK_TOKEN (set -u: any other reference would stop the shell), and sends [REDACTED] as text", () => {
    const out = execFileSync("bash", ["--norc", "--noprofile", "-c", `set -u\n${printing}`], {
      encoding: "utf8",
      env: { PATH: operatorShell.PATH, HOOK_TOKEN: "tok" },
    });
    expect(out.split("\0").slice(0, -1)).toEqual([
      "-X",
      "POST",
      "http://h/hooks/github?token=tok&aws_secret=[REDACTED]&note=[REDACTED]",
      "-H",
      "authorization: Bearer tok",
      "-H",
      "hook-token: [REDACTED]",
      "-H",
      "path: a[REDACTED]b",
      "-H",
      "slack-webhook-url: [REDACTED]",
      "-H",
      "x-forwarded-authorization: Bearer [REDACTED]",
      "-H",
      "x-hub-signature-256: [REDACTED]",
      "--data-binary",
      "[REDACTED] ${SLACK_WEBHOOK_URL}",
    ]);
  });

  it("none of the operator's own variables reaches the request", () => {
    const out = execFileSync("bash", ["--norc", "--noprofile", "-c", printing], { encoding: "utf8", env: operatorShell });
    expect(out).not.toMatch(/operator-own/);
  });
});
