/**
 * `gateway webhooks mail setup`, in five steps, one file each:
 *   1. read    (read-setup-config.ts) — the config file and the `hooks.mail` already in it;
 *   2. gather  (gather-answers.ts)    — flags, else prompts on a terminal, else current values/defaults;
 *   3. apply   (apply-setup.ts)       — answers applied, the result resolved as the gateway will, warnings;
 *   4. write   (config-file.ts)       — atomically, only when something changed (with the host's section
 *                                       store, inside OpenClaw: through the host's writer, section-write.ts);
 *   5. report  (setup-report.ts)      — what changed and what to run next.
 * Plain-text passwords are refused before anything is read.
 */
import { applySetup } from "./apply-setup";
import { writeSetupConfig } from "./config-file";
import { writeSectionStore } from "./section-write";
import { gatherAnswers, refuseConflictingFlags } from "./gather-answers";
import { readSetupConfig } from "./read-setup-config";
import { setupResult } from "./setup-report";
import type { MailSetupContext, MailSetupFlags, MailSetupResult } from "./setup-types";

export type { MailSetupContext, MailSetupFlags, MailSetupResult } from "./setup-types";

/** Runs setup; throws MailError on invalid input (nothing is written then). */
export async function runMailSetup(flags: MailSetupFlags, ctx: MailSetupContext): Promise<MailSetupResult> {
  refuseConflictingFlags(flags);
  const config = readSetupConfig(ctx);
  const answers = await gatherAnswers(flags, config.existing, ctx);
  const applied = applySetup(config.current, answers, ctx);
  const write = ctx.store ? await writeSectionStore(ctx.store, answers, applied) : writeSetupConfig(config.current, applied);
  return setupResult(config, answers, applied, write, ctx.store?.commands);
}
