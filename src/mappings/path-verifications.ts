/**
 * Signatures are checked per path, before the body is parsed (SPEC §10): every
 * request to a path that a mapping (or a preset) verifies must be signed, and
 * mappings sharing that path inherit the verification. This collects one
 * verification per path from the compiled mappings and refuses what cannot work:
 * a `verify` without `match.path`, and two different `verify` blocks on one path.
 */
import { isDeepStrictEqual } from "node:util";
import { ConfigError } from "../core/errors";
import type { SecretSource } from "../config/types";
import type { CompiledMapping, MappingVerify } from "./compiled-mapping";

/** The verification of one hook path (the sub-path after `hooks.path`). */
export interface PathVerification extends MappingVerify {
  path: string;
}

/** One entry per verified path, in mapping order. Throws ConfigError naming the keys involved. */
export function collectPathVerifications(mappings: readonly CompiledMapping[]): PathVerification[] {
  const byPath = new Map<string, PathVerification>();
  for (const m of mappings) {
    if (!m.verify) continue;
    const path = m.match.path;
    if (path === undefined) throw new ConfigError(`${m.verify.key} needs match.path (signatures are checked per path, before the body is parsed)`);
    const first = byPath.get(path);
    if (!first) {
      byPath.set(path, { ...m.verify, path });
      continue;
    }
    if (!isDeepStrictEqual(first.config, m.verify.config)) {
      throw new ConfigError(
        `${first.key} and ${m.verify.key} verify the same path "${path}" differently; signatures are checked per path, so give both the same verify block or use different paths`,
      );
    }
  }
  return [...byPath.values()];
}

/**
 * The header names the verifications read, lower-cased: a `verify.header` (hmac-sha256, token-header) may carry a
 * secret under any name, so the ledger redacts these beside the credential names it knows.
 */
export function verifiedHeaderNames(verifications: readonly PathVerification[]): ReadonlySet<string> {
  return new Set(verifications.flatMap((v) => (v.config.header ? [v.config.header.toLowerCase()] : [])));
}

/** A path whose Meta verification GET (`hub.challenge`) is answered (SPEC §12). */
export interface MetaHandshakeConfig {
  path: string;
  mappingId: string;
  verifyToken: SecretSource;
  /** How messages name the token, e.g. `hooks.mappings[1].handshake.meta.verifyToken`. */
  key: string;
}

/** One entry per path (the first mapping that declares it wins: a GET carries no payload to match on). */
export function collectMetaHandshakes(mappings: readonly CompiledMapping[]): MetaHandshakeConfig[] {
  const byPath = new Map<string, MetaHandshakeConfig>();
  for (const m of mappings) {
    const h = m.handshake;
    if (h === undefined || h === "slack" || m.match.path === undefined || byPath.has(m.match.path)) continue;
    byPath.set(m.match.path, { path: m.match.path, mappingId: m.id, verifyToken: h.meta.verifyToken, key: `${m.key}.handshake.meta.verifyToken` });
  }
  return [...byPath.values()];
}
