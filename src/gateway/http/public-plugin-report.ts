/**
 * What `GET /api/status` may say about a plugin (SPEC §4.2: no response ever
 * contains internal paths). A load report keeps the plugin directory and reasons
 * such as `shadowed by path copy in /srv/x` or `Cannot find module '/srv/x/y.js'`
 * for the journal and the log; the HTTP view drops the directory and replaces
 * every filesystem path in the reason with `<path>`.
 */
import type { PluginReport } from "../plugins/plugin-loader";

export interface PublicPluginReport {
  id?: string;
  name?: string;
  version?: string;
  origin: PluginReport["origin"];
  status: PluginReport["status"];
  reason?: string;
}

/**
 * `file:` URLs, Windows drive and UNC paths, `./` and `../` relative paths (a
 * loader may report a file relative to its own directory), then POSIX absolute
 * paths not preceded by a word, `:` or `/` (so `and/or` and `http://…` are left alone).
 */
const PATH_PATTERNS: readonly RegExp[] = [
  /file:\/\/[^\s'"`)]+/gi,
  /(?<![\w])[A-Za-z]:[\\/][^\s'"`)]*/g,
  /\\\\[^\s'"`)\\]+\\[^\s'"`)]*/g,
  /(?<![\w.])\.{1,2}[\\/][^\s'"`()<>,;]*/g,
  /(?<![\w.:/\\-])\/[^\s'"`()<>,;]+/g,
];

/**
 * The text with every filesystem path replaced by `<path>`.
 *
 * @example scrubPaths("Cannot find module '/srv/p/lib.js'") // "Cannot find module '<path>'"
 */
export function scrubPaths(text: string): string {
  return PATH_PATTERNS.reduce((s, re) => s.replace(re, "<path>"), text);
}

/** The report without its directory and with a path-free reason. */
export function publicPluginReport(report: PluginReport): PublicPluginReport {
  return {
    ...(report.id !== undefined ? { id: report.id } : {}),
    ...(report.name !== undefined ? { name: report.name } : {}),
    ...(report.version !== undefined ? { version: report.version } : {}),
    origin: report.origin,
    status: report.status,
    ...(report.reason !== undefined ? { reason: scrubPaths(report.reason) } : {}),
  };
}
