/**
 * `hooks.store` (SPEC §16, docs/scale.md): the validated section turned into a
 * `StoreConfig`, the keys that only apply to Postgres refused with the SQLite store, and
 * the Postgres url read from its source when the gateway starts serving hooks.
 *
 * The url carries the password: no message here contains it, nor any part of the url but
 * its scheme; the caller hides the password from every log line (`storeSecrets`).
 *
 * @example
 *   const { url } = resolveStoreUrl(config.store, { configDir }); // throws one ConfigError naming hooks.store.url
 */
import { problemLine, sortProblems, type KeyedProblem } from "../host-contract/config-rules";
import { ConfigError } from "../core/errors";
import { resolveSecret, type SecretContext } from "./secrets";
import { HOOKS_DEFAULTS } from "./rules";
import type { SecretSource, StoreConfig } from "./types";

/** `hooks.store` as joi returns it (defaults applied). */
export interface ValidatedStore {
  kind: StoreConfig["kind"];
  url?: SecretSource;
  poolMax?: number;
  connectTimeoutMs?: number;
  leaseSeconds?: number;
}

const POSTGRES_ONLY = ["url", "poolMax", "connectTimeoutMs", "leaseSeconds"] as const;

/** The keys given that only apply to Postgres, while the kind is "sqlite". */
export function storeProblems(store: ValidatedStore | undefined): KeyedProblem[] {
  if (!store || store.kind !== "sqlite") return [];
  return POSTGRES_ONLY.filter((k) => store[k] !== undefined).map((k) => ({
    key: `hooks.store.${k}`,
    rule: 'applies only with hooks.store.kind "postgres" (the SQLite store is the file in the state dir)',
  }));
}

export function toStoreConfig(store: ValidatedStore): StoreConfig {
  if (store.kind === "sqlite") return { kind: "sqlite" };
  const d = HOOKS_DEFAULTS.store;
  return {
    kind: "postgres",
    urlSource: store.url!,
    poolMax: store.poolMax ?? d.poolMax,
    connectTimeoutMs: store.connectTimeoutMs ?? d.connectTimeoutMs,
    leaseSeconds: store.leaseSeconds ?? d.leaseSeconds,
  };
}

export type StoreUrlResolution =
  { ok: true; url: string; /** The url's password (decoded), to hide from logs; "" when none. */ password: string } | { ok: false; problems: KeyedProblem[] };

/** Reads `hooks.store.url` and checks it is a Postgres url with a host; every problem named, never the url. */
export function resolveStoreUrl(source: SecretSource, ctx: SecretContext): StoreUrlResolution {
  const problem = (rule: string): StoreUrlResolution => ({ ok: false, problems: [{ key: "hooks.store.url", rule }] });
  const r = resolveSecret(source, ctx);
  if (!r.ok) return problem(r.reason);
  const from = r.source === "plain text" ? "" : `(from ${r.source}) `;
  let url: URL;
  try {
    url = new URL(r.value);
  } catch {
    return problem(`${from}is not a url: postgres://user:password@host:port/database`);
  }
  const problems: KeyedProblem[] = [];
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    problems.push({ key: "hooks.store.url", rule: `${from}must start with postgres:// or postgresql:// (it starts with ${url.protocol.slice(0, 20)}//)` });
  } else if (url.hostname === "") problems.push({ key: "hooks.store.url", rule: `${from}names no host: postgres://user:password@host:port/database` });
  if (problems.length > 0) return { ok: false, problems };
  let password = "";
  try {
    password = decodeURIComponent(url.password);
  } catch {
    password = url.password;
  }
  return { ok: true, url: r.value, password };
}

/** The Postgres url of `store` read from its source (undefined for SQLite); throws one ConfigError naming hooks.store.url. */
export function readStoreUrl(store: StoreConfig, ctx: SecretContext): { url: string; password: string } | undefined {
  if (store.kind !== "postgres") return undefined;
  const r = resolveStoreUrl(store.urlSource, ctx);
  if (!r.ok) throw new ConfigError(sortProblems(r.problems).map(problemLine).join("\n"));
  return { url: r.url, password: r.password };
}
