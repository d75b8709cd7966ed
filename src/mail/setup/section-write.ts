/**
 * Step 4 of `mail setup` with a host's section store (inside OpenClaw): the answers applied again to the
 * section as the host's config holds it when it writes (OpenClaw's config writer hands its current source,
 * `${VAR}` references unresolved), so every other key — of the section and of the host's config — is kept
 * as written. A token created by the apply step is the one written (the report named it created).
 */
import type { SectionStore } from "../../host-contract/section-store";
import { rawSection } from "../../config/raw-section";
import { mailErrors } from "../mail-error";
import { applyMailSetup, type ApplyMailSetupResult } from "./apply-mail-setup";
import type { SetupWrite } from "./config-file";
import type { MailSetupAnswers } from "./setup-answers";

export async function writeSectionStore(store: SectionStore, answers: MailSetupAnswers, applied: ApplyMailSetupResult): Promise<SetupWrite> {
  if (applied.changes.length === 0) return { written: false, warnings: [] };
  const created = applied.tokenCreated ? rawSection(applied.config, "hooks").token : undefined;
  const generateToken = typeof created === "string" ? () => created : undefined;
  try {
    await store.write((current) => ({ ...rawSection(applyMailSetup({ hooks: current }, answers, { generateToken }).config, "hooks") }));
  } catch (e) {
    throw mailErrors.sectionUnwritable({ location: store.location, reason: e instanceof Error ? e.message : String(e) }, { cause: e });
  }
  return { written: true, warnings: [] };
}
