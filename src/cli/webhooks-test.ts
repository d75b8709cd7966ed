/**
 * `gateway webhooks test <name> --payload <file.json> [--header k:v …] [--query k=v …] [--json]`:
 * a dry run of a mapped hook for operators. The payload file is parsed like a
 * request body (JSON, or form-encoded when `--header "content-type: application/x-www-form-urlencoded"`),
 * the mapping is resolved (templates rendered, transform run) and the action is
 * validated exactly like a request; the report shows the matched mapping and the
 * action. Nothing is dispatched: no system event, no run, no delivery.
 */
import fs from "node:fs";
import type { Command } from "commander";
import { validateAction } from "../actions/validate";
import type { HooksConfig } from "../config/types";
import { normaliseMatchPath } from "../config/paths";
import { parseBody } from "../actions/body/parse-body";
import type { MappedHookInput } from "../core/ports";
import type { ModuleLogger } from "../core/logger";
import type { PluginApi } from "../host-contract/host-api";
import { formatDryRun, formatMappingList, type DryRunReport } from "../mappings/dry-run-report";
import type { MappingEngine } from "../mappings/engine";
import { RESERVED_HOOK_NAMES } from "../mappings/match";

export interface DryRunDeps {
  api: PluginApi;
  config: HooksConfig;
  mappings: MappingEngine;
  logs: { forModule(name: string): ModuleLogger };
}

interface DryRunOptions {
  payload: string;
  config?: string;
  header: string[];
  query: string[];
  json?: boolean;
}

/** A failure the command reports on stderr with a non-zero exit. */
class DryRunFailure extends Error {}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function parseHeaders(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    const i = h.indexOf(":");
    const name = i > 0 ? h.slice(0, i).trim().toLowerCase() : "";
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) throw new DryRunFailure(`--header "${h}" must look like "Name: value"`);
    out[name] = h.slice(i + 1).trim();
  }
  return out;
}

function parseQuery(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of list) {
    const i = q.indexOf("=");
    if (i <= 0) throw new DryRunFailure(`--query "${q}" must look like "name=value"`);
    out[q.slice(0, i)] = q.slice(i + 1);
  }
  return out;
}

function readPayload(file: string, contentType: string | undefined): Record<string, unknown> {
  let raw: Buffer;
  try {
    raw = file === "-" ? fs.readFileSync(0) : fs.readFileSync(file);
  } catch (e) {
    throw new DryRunFailure(`cannot read --payload ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const parsed = parseBody(raw, { mapped: true, contentType: contentType ?? "application/json" });
  if (!parsed.ok) throw new DryRunFailure(`--payload ${file}: ${parsed.error.message} (${parsed.error.code})`);
  return parsed.value;
}

function detailLines(details: Array<{ field: string; message: string }> | undefined): string {
  return (details ?? []).map((d) => `\n  - ${d.field}: ${d.message}`).join("");
}

/** Runs one dry run; returns the report or throws DryRunFailure. */
export async function runDryRun(name: string, opts: DryRunOptions, deps: DryRunDeps): Promise<DryRunReport> {
  const hook = normaliseMatchPath(name);
  if (RESERVED_HOOK_NAMES.has(hook)) {
    throw new DryRunFailure(`"${hook}" is a direct endpoint, not a mapped hook; webhooks test dry-runs ${deps.config.path}/<name> mappings`);
  }
  const headers = parseHeaders(opts.header);
  const query = parseQuery(opts.query);
  const payload = readPayload(opts.payload, headers["content-type"]);
  const qs = new URLSearchParams(Object.entries(query).filter(([k]) => k.toLowerCase() !== "token")).toString();
  const input: MappedHookInput = { name: hook, payload, headers, query, url: `${deps.config.path}/${hook}${qs ? `?${qs}` : ""}`, requestId: "dry-run" };

  const resolved = await deps.mappings.dryRun(input);
  if (!resolved.ok) {
    const e = resolved.error;
    const why = e.code === "transform_failed" ? " (the cause is in the log above)" : "";
    throw new DryRunFailure(`The hook would fail with ${e.status} ${e.code}: ${e.message}${why}${detailLines(e.details)}`);
  }
  const outcome = resolved.value;
  if (outcome.kind === "no_match") {
    throw new DryRunFailure(`No mapping matches "${hook}" (the hook would answer 404 not_found).\n${formatMappingList(deps.mappings.describe())}`);
  }
  const described = deps.mappings.describe().find((m) => m.id === outcome.mappingId);
  const mapping = { id: outcome.mappingId, key: described?.key ?? outcome.mappingId };
  if (outcome.kind === "skip") return { hook, mapping, outcome: "skip", dispatched: false };

  const validated = validateAction(outcome.raw, { runtime: deps.api.runtime, config: deps.config }, `action of mapping ${outcome.mappingId}`);
  if (!validated.ok) {
    const e = validated.error;
    throw new DryRunFailure(`Mapping ${outcome.mappingId} matched, but its action is invalid (the hook would answer ${e.status} ${e.code}): ${e.message}${detailLines(e.details)}`);
  }
  return {
    hook,
    mapping,
    outcome: "action",
    action: validated.value,
    allowUnsafeExternalContent: outcome.allowUnsafeExternalContent,
    ...(validated.value.kind === "agent" ? { sessionKeyGenerated: outcome.raw.sessionKey === undefined } : {}),
    dispatched: false,
  };
}

/** Adds `test` to the `webhooks` command group. */
export function registerDryRunCommand(webhooks: Command, deps: DryRunDeps): void {
  const log = deps.logs.forModule("mappings");
  webhooks
    .command("test")
    .description("Dry-run a mapped hook: show which mapping matches and the exact action, without dispatching anything")
    .argument("<name>", "hook name: the sub-path after hooks.path, e.g. github for POST /hooks/github")
    .requiredOption("--payload <file>", "JSON body to test with (- reads stdin)")
    .option("--header <name:value>", "a request header, repeatable (content-type selects JSON or form parsing)", collect, [])
    .option("--query <name=value>", "a query parameter, repeatable", collect, [])
    .option("--json", "print the report as JSON")
    // Read by the host before plugins activate (it decides which config the mappings come from).
    .option("-c, --config <file>", "gateway config file (default: $GATEWAY_CONFIG, else ./gateway.config.json)")
    .action(async (name: string, opts: DryRunOptions, cmd: Command) => {
      const out = cmd.configureOutput();
      const write = out.writeOut ?? ((s: string) => process.stdout.write(s));
      try {
        const report = await runDryRun(name, opts, deps);
        log.info("dry run", { hook: report.hook, mappingId: report.mapping.id, outcome: report.outcome });
        write(opts.json ? `${JSON.stringify({ ok: true, ...report }, null, 2)}\n` : formatDryRun(report));
      } catch (e) {
        if (!(e instanceof DryRunFailure)) throw e;
        if (opts.json) write(`${JSON.stringify({ ok: false, error: e.message, dispatched: false }, null, 2)}\n`);
        cmd.error(`webhooks test: ${e.message}`, { exitCode: 1, code: "webhooks.test.failed" });
      }
    });
}
