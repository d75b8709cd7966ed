/**
 * `gateway webhooks test <name> --payload <file.json> [--header k:v …] [--query k=v …] [--json]`:
 * a dry run of a mapped hook for operators. This file is only the command: it reads
 * the flags and the payload file and prints the report; the dry run itself (body
 * parsing, mapping, templates/transform, validation — nothing dispatched) is
 * `dryRunHook` in src/mappings/dry-run.ts.
 */
import fs from "node:fs";
import type { Command } from "commander";
import type { ResolvedHooksConfig } from "../config/types";
import type { ModuleLogger } from "../core/logger";
import type { PluginApi } from "../host-contract/host-api";
import { dryRunHook, type DryRunFailure, type DryRunRequest } from "../mappings/dry-run";
import { formatDryRun } from "../mappings/dry-run-report";
import type { MappingEngine } from "../mappings/engine";

export interface DryRunDeps {
  api: PluginApi;
  config: ResolvedHooksConfig;
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

/** A flag the command cannot use; reported on stderr with a non-zero exit. */
class FlagError extends Error {}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function parseHeaders(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    const i = h.indexOf(":");
    const name = i > 0 ? h.slice(0, i).trim().toLowerCase() : "";
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) throw new FlagError(`--header "${h}" must look like "Name: value"`);
    out[name] = h.slice(i + 1).trim();
  }
  return out;
}

function parseQuery(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of list) {
    const i = q.indexOf("=");
    if (i <= 0) throw new FlagError(`--query "${q}" must look like "name=value"`);
    out[q.slice(0, i)] = q.slice(i + 1);
  }
  return out;
}

function readPayloadFile(file: string): Buffer {
  try {
    return file === "-" ? fs.readFileSync(0) : fs.readFileSync(file);
  } catch (e) {
    throw new FlagError(`cannot read --payload ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The failure as this command words it: the payload named by its file, the log pointed at for a transform's cause. */
function failureText(f: DryRunFailure, opts: DryRunOptions, config: ResolvedHooksConfig): string {
  let first = f.message;
  if (f.reason === "direct_endpoint") first = `${f.message}; webhooks test dry-runs ${config.path}/<name> mappings`;
  else if (f.reason === "invalid_body") first = `--payload ${opts.payload}: ${f.message}`;
  else if (f.code === "transform_failed") first = `${f.message} (the cause is in the log above)`;
  return [first, ...f.lines].join("\n");
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
      const fail = (message: string): never => {
        if (opts.json) write(`${JSON.stringify({ ok: false, error: message, dispatched: false }, null, 2)}\n`);
        return cmd.error(`webhooks test: ${message}`, { exitCode: 1, code: "webhooks.test.failed" });
      };
      let request: DryRunRequest;
      try {
        request = { name, headers: parseHeaders(opts.header), query: parseQuery(opts.query), body: readPayloadFile(opts.payload) };
      } catch (e) {
        if (!(e instanceof FlagError)) throw e;
        return fail(e.message);
      }
      const result = await dryRunHook(request, { config: deps.config, runtime: deps.api.runtime, mappings: deps.mappings });
      if (!result.ok) return fail(failureText(result.error, opts, deps.config));
      const report = result.value;
      log.info("dry run", { hook: report.hook, mappingId: report.mapping.id, outcome: report.outcome });
      write(opts.json ? `${JSON.stringify({ ok: true, ...report }, null, 2)}\n` : formatDryRun(report));
    });
}
