import type { ModuleLogger } from "../core/logger";

/** Runs an emit; a throwing event subscriber is logged and never breaks a run. */
export function safeEmit(logger: ModuleLogger, emit: () => void): void {
  try {
    emit();
  } catch (e) {
    logger.error("a run event subscriber threw", { code: "subscriber_failed", error: e instanceof Error ? e.message : String(e) });
  }
}
