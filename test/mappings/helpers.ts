/**
 * Builders for mapping-engine unit tests: a resolved config with defaults, a
 * capturing logger, and one valid mapped-hook input each test changes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { MappingConfig, ResolvedHooksConfig } from "../../src/config/types";
import type { MappedHookInput } from "../../src/core/ports";
import type { ModuleLogger } from "../../src/logging/logger";
import { resolvedConfig } from "../helpers/resolved-config";

export const FIXTURES = path.resolve(__dirname, "../fixtures");
export const TRANSFORM_FIXTURES = path.join(FIXTURES, "transforms");
export const PAYLOAD_FIXTURES = path.join(FIXTURES, "payloads");

export function readPayload(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(PAYLOAD_FIXTURES, name), "utf8")) as Record<string, unknown>;
}

/** A mapping with `action: "agent"` unless given. */
export function mapping(m: Partial<MappingConfig> & { id: string }): MappingConfig {
  return { action: "agent", ...m };
}

/** A resolved config for the engine: the shared test defaults with the fixtures' transforms dir. */
export function makeConfig(overrides: Partial<ResolvedHooksConfig> = {}): ResolvedHooksConfig {
  return resolvedConfig({
    token: "test-hook-token-0123456789abcdef",
    transformsDir: TRANSFORM_FIXTURES,
    transformTimeoutMs: 2000,
    runs: {
      maxConcurrent: 4,
      maxQueued: 1000,
      shutdownGraceSeconds: 10,
      retryInterrupted: false,
      maxWaitSeconds: 30,
      maxWaitingPerClient: 8,
      retentionDays: 7,
      maxFinished: 1000,
    },
    rateLimit: { enabled: true, max: 120, windowSeconds: 60 },
    ...overrides,
  });
}

export interface LoggedLine {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  meta?: Record<string, unknown>;
}

/** A ModuleLogger that records every line. */
export function captureLogger(): ModuleLogger & { lines: LoggedLine[]; at(level: LoggedLine["level"]): LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const logAt =
    (level: LoggedLine["level"]) =>
    (message: unknown, meta?: unknown): ModuleLogger => {
      lines.push({ level, message: String(message), meta: meta as Record<string, unknown> | undefined });
      return logger as unknown as ModuleLogger;
    };
  const logger = {
    lines,
    at: (level: LoggedLine["level"]) => lines.filter((l) => l.level === level),
    debug: logAt("debug"),
    info: logAt("info"),
    warn: logAt("warn"),
    error: logAt("error"),
  };
  return logger as unknown as ModuleLogger & { lines: LoggedLine[]; at(level: LoggedLine["level"]): LoggedLine[] };
}

/** A valid mapped-hook input; each test changes one thing. */
export function hookInput(name: string, payload: Record<string, unknown> = {}, extra: Partial<MappedHookInput> = {}): MappedHookInput {
  return {
    name,
    payload,
    headers: { "content-type": "application/json", "user-agent": "test-sender/1.0" },
    query: {},
    url: `/hooks/${name}`,
    requestId: "req-1",
    ...extra,
  };
}

/** A fresh temp directory (removed by the caller). */
export function tempDir(prefix = "iw-mappings-"): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export const FIXED_NOW = new Date("2025-03-14T09:30:00.000Z");
export const fixedClock = (): Date => FIXED_NOW;

/**
 * Records the length of every string `JSON.stringify` builds from now until `jest.restoreAllMocks()`
 * (for tests that assert how much a request stringified, not how long it took).
 */
export function recordStringified(): number[] {
  const built: number[] = [];
  const stringify = JSON.stringify;
  jest.spyOn(JSON, "stringify").mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
    const out = stringify(...args);
    if (typeof out === "string") built.push(out.length);
    return out;
  });
  return built;
}
