/**
 * A plugin logger whose lines are recorded, built like the real one
 * (createPluginLogger → forModule), so redaction applies as in production.
 */
import { createPluginLogger, type ModuleLogger } from "../../../src/logging/logger";

export interface LoggedLine {
  level: string;
  message: string;
  meta?: Record<string, unknown>;
}

export function createTestLogger(): { logger: ModuleLogger; lines: LoggedLine[]; text(): string; close(): void } {
  const lines: LoggedLine[] = [];
  const logAt = (level: string) => (message: string, meta?: Record<string, unknown>) => {
    lines.push({ level, message, meta });
  };
  const root = createPluginLogger({ debug: logAt("debug"), info: logAt("info"), warn: logAt("warn"), error: logAt("error") });
  return {
    logger: root.forModule("mail"),
    lines,
    text: () => lines.map((l) => `${l.level} ${l.message} ${JSON.stringify(l.meta ?? {})}`).join("\n"),
    close: () => root.close(),
  };
}
