/**
 * Shared setup of the mapped-hooks tests (test/intake/mapped-hooks*.test.ts): the plugin activated
 * on the fake host with a config dir holding the transform fixtures and mappings that cover
 * templates, transforms, source routing and credential filtering.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import type { FakeHostOptions } from "../helpers/fake-host";

export const FIXTURES = path.resolve(__dirname, "../fixtures");
export const pushJson = fs.readFileSync(path.join(FIXTURES, "payloads/github-push.json"), "utf8");

export const MARKER = /<<<EXTERNAL_UNTRUSTED_CONTENT id="[0-9a-f]+">>>/;

/** A config dir with hooks/transforms holding the transform fixtures. */
export function makeConfigDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "iw-mapped-")));
  const transforms = path.join(dir, "hooks", "transforms");
  fs.mkdirSync(transforms, { recursive: true });
  for (const f of fs.readdirSync(path.join(FIXTURES, "transforms"))) fs.copyFileSync(path.join(FIXTURES, "transforms", f), path.join(transforms, f));
  return dir;
}

const githubWake = {
  id: "gh-wake",
  match: { path: "github" },
  action: "wake",
  allowUnsafeExternalContent: true,
  textTemplate: "{{ headers.x-github-event }} to {{ repository.full_name }} by {{ pusher.name }}: {{ head_commit.message | truncate: 26 }}",
};

const MAPPINGS = [
  githubWake,
  { id: "user-session", match: { path: "chat" }, sessionKey: "{{payload.user}}", messageTemplate: "{{ text }}" },
  { id: "unsafe", match: { path: "trusted" }, allowUnsafeExternalContent: true, sessionKey: "hook:trusted", messageTemplate: "Internal: {{ text }}" },
  { id: "bad-model", match: { path: "fancy" }, model: "openai/gpt-5", messageTemplate: "{{ text }}" },
  { id: "gh-js", match: { path: "gh-js" }, transform: { module: "github-push.js" } },
  { id: "ts", match: { path: "sensors" }, transform: { module: "summarize.ts" } },
  { id: "quiet", match: { path: "quiet" }, transform: { module: "skip.js" } },
  { id: "boom", match: { path: "boom" }, transform: { module: "throws.cjs" } },
  { id: "slow", match: { path: "slow" }, transform: { module: "never.mjs" } },
  { id: "crm", match: { source: "crm" }, action: "wake", textTemplate: "CRM {{ event }}" },
  {
    id: "echo-tpl",
    match: { path: "echo-tpl" },
    action: "wake",
    allowUnsafeExternalContent: true,
    textTemplate:
      "H={{ headers }} Q={{ query }} [{{ headers.cookie }}][{{ headers.x-hub-signature-256 }}][{{ headers.api-key }}][{{ headers.x-shopify-hmac-sha256 }}][{{ query.token }}][{{ query.access_token }}]",
  },
  { id: "echo-js", match: { path: "echo-js" }, sessionKey: "hook:echo", allowUnsafeExternalContent: true, transform: { module: "context-echo.js" } },
];

export type MappedApp = PluginApp & { configDir: string };

/** The plugin with MAPPINGS (plus `opts.hooks`) on a fresh config dir, removed again by close(). */
export async function startMappedApp(opts: FakeHostOptions & { hooks?: Record<string, unknown> } = {}): Promise<MappedApp> {
  const configDir = makeConfigDir();
  const app = await startPluginApp({
    configDir,
    models: [{ ref: "openai/gpt-4o-mini", alias: "mini" }],
    extraConfig: { agents: { defaults: { models: { "openai/gpt-4o-mini": { alias: "mini" } } } } },
    ...opts,
    hooks: { mappings: MAPPINGS, transformTimeoutMs: 300, ...(opts.hooks ?? {}) },
  });
  const closeApp = app.close.bind(app);
  return Object.assign(app, {
    configDir,
    async close() {
      await closeApp();
      fs.rmSync(configDir, { recursive: true, force: true });
    },
  });
}

export const auth = { Authorization: `Bearer ${TEST_TOKEN}` };
