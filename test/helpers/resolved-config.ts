/**
 * A ResolvedHooksConfig with the documented defaults (SPEC §3), for tests that
 * exercise a module without going through config resolution.
 */
import type { ResolvedHooksConfig } from "../../src/config/types";

export const ROUTER_TEST_TOKEN = "router-test-token-0123456789abcdef";

export function resolvedConfig(overrides: Partial<ResolvedHooksConfig> = {}): ResolvedHooksConfig {
  return {
    enabled: true,
    token: ROUTER_TEST_TOKEN,
    path: "/hooks",
    maxBodyBytes: 262_144,
    maxFanOut: 100,
    maxRenderedBytes: 1048576,
    bodyTimeoutMs: 30_000,
    allowQueryToken: true,
    presets: [],
    mappings: [],
    transformsDir: "/nonexistent/hooks/transforms",
    transformTimeoutMs: 5000,
    allowedSessionKeyPrefixes: ["hook:"],
    runs: {
      maxConcurrent: 4,
      maxQueued: 1000,
      shutdownGraceSeconds: 30,
      retryInterrupted: false,
      maxWaitSeconds: 30,
      maxWaitingPerClient: 8,
      retentionDays: 7,
      maxFinished: 1000,
    },
    idempotency: { ttlSeconds: 86_400 },
    rateLimit: { enabled: false, max: 120, windowSeconds: 60 },
    authThrottle: { maxFailures: 20, windowSeconds: 60 },
    ledger: { storeBodies: true, retentionDays: 7, maxEntries: 10_000 },
    store: { kind: "sqlite" },
    durability: "process",
    defaultTimeoutSeconds: 600,
    ...overrides,
  };
}
