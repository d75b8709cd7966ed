/**
 * From validated mapping entries to `MappingConfig`: default ids (`mapping-<n>`),
 * normalised `match.path`, default action. `parseMappings` validates a list on its
 * own (used for mappings that presets contribute) with the same schema and messages
 * as `hooks.mappings`.
 */
import type { MappingConfig } from "./types";
import { err, ok, type Result } from "../core/errors";
import { mappingListSchema } from "./mapping-schema";
import { normaliseMatchPath } from "./paths";
import { describeProblems } from "./problems";
import { MAPPING_DEFAULTS } from "./rules";
import { VALIDATION_OPTIONS } from "./schema";

/** A mapping entry as the joi schema returns it (validated, action defaulted). */
export type ValidatedMapping = Omit<MappingConfig, "id" | "match"> & {
  id?: string;
  match?: { path?: string; source?: string; headers?: Record<string, string | string[]> };
};

/** `{ "x-github-event": "push" }` → `{ "x-github-event": ["push"] }`. */
function normaliseHeaderMatch(headers: Record<string, string | string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, v] of Object.entries(headers)) out[name] = Array.isArray(v) ? [...v] : [v];
  return out;
}

/**
 * Builds the `MappingConfig` of the entry at `index` (0-based). Duplicate ids are
 * kept: the mapping engine reports them.
 */
export function toMappingConfig(entry: ValidatedMapping, index: number, idPrefix: string = MAPPING_DEFAULTS.idPrefix): MappingConfig {
  const { id, match, ...rest } = entry;
  const out: MappingConfig = { ...rest, id: id ?? `${idPrefix}${index + 1}`, action: entry.action ?? MAPPING_DEFAULTS.action };
  const path = match?.path === undefined ? undefined : normaliseMatchPath(match.path);
  const headers = match?.headers === undefined ? undefined : normaliseHeaderMatch(match.headers);
  if (path !== undefined || match?.source !== undefined || headers !== undefined) {
    out.match = {};
    if (path !== undefined) out.match.path = path;
    if (match?.source !== undefined) out.match.source = match.source;
    if (headers !== undefined) out.match.headers = headers;
  }
  return out;
}

/**
 * Validates and resolves a list of mappings outside `hooks` (e.g. a preset's).
 * `label` names the list in messages, e.g. `["presets", "github", "mappings"]`.
 *
 * @example
 *   const r = parseMappings(preset.mappings, { label: ["presets", preset.name, "mappings"], idPrefix: `${preset.name}-` });
 *   if (!r.ok) throw new ConfigError(r.error.join("; "));
 */
export function parseMappings(raw: unknown, opts: { label: Array<string | number>; idPrefix?: string }): Result<MappingConfig[], string[]> {
  const { value, error } = mappingListSchema.validate(raw, VALIDATION_OPTIONS);
  if (error) return err(describeProblems(error, mappingListSchema, opts.label));
  return ok((value as ValidatedMapping[]).map((m, i) => toMappingConfig(m, i, opts.idPrefix)));
}
