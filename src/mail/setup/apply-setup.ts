/**
 * Step 3 of `mail setup` — apply: the answers applied to the config (pure,
 * apply-mail-setup.ts), the result resolved exactly as the plugin resolves it at
 * start (so setup never writes a config the gateway would refuse), the warnings the
 * user should see, and whether the file's permissions must be tightened.
 */
import fs from "node:fs";
import path from "node:path";
import { resolveConfig } from "../../config/resolve";
import { rawSection } from "../../config/raw-section";
import { isLoopback } from "../../host-contract/gateway-address";
import { mailErrors } from "../mail-error";
import { applyMailSetup, type ApplyMailSetupResult } from "./apply-mail-setup";
import type { RawConfigFile } from "./config-file";
import { shellQuote } from "../../host-contract/shell-quote";
import type { MailSetupAnswers } from "./setup-answers";
import type { MailSetupContext } from "./setup-types";

export interface AppliedSetup extends ApplyMailSetupResult {
  warnings: string[];
  /** New permission bits for the file, when they must change. */
  mode?: number;
}

/** `0o644` → "0644". */
function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}

/** Runs the plugin's own config resolution on the result; throws MailError when the gateway would refuse it. */
function checkAcceptedByPlugin(config: Record<string, unknown>, configDir: string, env: NodeJS.ProcessEnv): void {
  const probe = JSON.parse(JSON.stringify(config)) as { hooks?: Record<string, unknown> };
  // A token reference may only resolve where the gateway runs; validate the rest with a stand-in.
  if (probe.hooks && typeof probe.hooks.token !== "string") probe.hooks.token = "x".repeat(32);
  try {
    resolveConfig(probe, { configDir, env });
  } catch (e) {
    throw mailErrors.configRefused({ reason: (e as Error).message }, { cause: e });
  }
}

function passwordWarnings(ref: MailSetupAnswers["password"], env: NodeJS.ProcessEnv): string[] {
  if ("env" in ref) {
    return env[ref.env] ? [] : [`Environment variable ${ref.env} is not set in this shell; set it (export ${ref.env}=…) wherever the watcher runs.`];
  }
  try {
    const st = fs.statSync(ref.file);
    return (st.mode & 0o077) !== 0 ? [`The password file ${ref.file} can be read by other users; run chmod 600 ${shellQuote(ref.file)}.`] : [];
  } catch {
    return [`The password file ${ref.file} does not exist yet; create it (one line, chmod 600) before starting the watcher.`];
  }
}

/** Applies and checks the answers; throws MailError (nothing written) when the result would be refused. */
export function applySetup(current: RawConfigFile, answers: MailSetupAnswers, ctx: MailSetupContext): AppliedSetup {
  const file = current.file;
  const applied = applyMailSetup(current.raw, answers, { generateToken: ctx.generateToken });
  // Checked as the plugin will read it: inside OpenClaw the section within OpenClaw's config (its defaults, its gateway).
  const section = rawSection(applied.config, "hooks");
  if (ctx.store) checkAcceptedByPlugin(ctx.store.snapshotWith(section), ctx.configDir ?? path.dirname(file), ctx.env);
  else checkAcceptedByPlugin(applied.config, path.dirname(file), ctx.env);

  const warnings = passwordWarnings(answers.password, ctx.env);
  if (answers.tls === "none" && !isLoopback(answers.host)) {
    warnings.push(`tls "none" sends the IMAP password unencrypted to ${answers.host}; use "tls" (port 993) or "starttls" (port 143).`);
  }
  if (!ctx.configPath && !ctx.store) {
    warnings.push(
      `No config file was in use (the gateway's demo default), so setup ${current.existed ? "updated" : "created"} ${file}; the gateway reads it when started from ${path.dirname(file)} or with --config.`,
    );
  }

  // A plain-text hook token must not sit in a file every user can read. A group-only mode
  // (e.g. 0640 for a service group) is an operator's deliberate choice and is kept.
  const readableByOthers = current.mode !== undefined && (current.mode & 0o007) !== 0;
  const mode = applied.tokenCreated && readableByOthers ? 0o600 : undefined;
  if (mode !== undefined) {
    applied.changes.push(`permissions of ${file} tightened from ${octal(current.mode!)} to 0600 (it now holds the hook token)`);
  } else if (readableByOthers && typeof rawSection(applied.config, "hooks").token === "string") {
    warnings.push(`${file} holds hooks.token in plain text and can be read by other users; run chmod 600 ${shellQuote(file)}.`);
  }
  return { ...applied, warnings, ...(mode === undefined ? {} : { mode }) };
}
