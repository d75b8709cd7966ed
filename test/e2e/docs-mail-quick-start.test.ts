/**
 * docs/mail.md's Quick start, step 2, run as written (bash, `npx gateway` → the built
 * bin) in a fresh directory: it must write ./gateway.config.json (mode 0600) with the
 * mail preset and the IMAP settings. Before, the step named `--config gateway.config.json`,
 * a file that does not exist yet, and stopped with "the file does not exist".
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { GATEWAY_BIN, GATEWAY_NODE, makeGatewayDir, REPO_ROOT } from "../helpers/gateway-process";

/** The `npx gateway webhooks mail setup …` command of the Quick start, with its continuation lines. */
function quickStartSetup(): string {
  const doc = fs.readFileSync(path.join(REPO_ROOT, "docs", "mail.md"), "utf8");
  const quick = doc.slice(doc.indexOf("## Quick start"));
  const lines = quick.split("\n");
  const at = lines.findIndex((l) => l.startsWith("npx gateway webhooks mail setup"));
  expect(at).toBeGreaterThan(0);
  const command: string[] = [];
  for (let i = at; i < lines.length; i++) {
    command.push(lines[i]!);
    if (!lines[i]!.endsWith("\\")) break;
  }
  return command.join("\n");
}

test("docs/mail.md's Quick start step 2, as written, creates ./gateway.config.json in a fresh directory", () => {
  const dir = makeGatewayDir();
  const script = `npx() { shift; "${GATEWAY_NODE}" "${GATEWAY_BIN}" "$@"; }\n${quickStartSetup()} --no-input`;
  const r = spawnSync("bash", ["-c", script], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GATEWAY_CONFIG: "", GMAIL_APP_PASSWORD: "abcdefghijklmnop" },
    timeout: 30_000,
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const file = path.join(dir, "gateway.config.json");
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  const config = JSON.parse(fs.readFileSync(file, "utf8")) as { hooks: Record<string, unknown> };
  expect(config.hooks).toMatchObject({
    enabled: true,
    presets: ["mail"],
    mail: { imap: { host: "imap.gmail.com", port: 993, tls: "tls", user: "you@gmail.com", password: { env: "GMAIL_APP_PASSWORD" } } },
  });
});
