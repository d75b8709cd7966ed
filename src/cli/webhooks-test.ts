/**
 * `gateway webhooks test <name> --payload <file.json> [--header k:v …] [--query k=v …] [--json]`:
 * a dry run of a mapped hook for operators. This file is only the command: it reads
 * the flags and the payload file and prints the report; the dry run itself (the
 * accept path of a live request with a dispatcher that only records: body parsing,
 * mapping, templates/transform, validation — nothing dispatched) is `dryRunHook` in
 * src/intake/dry-run.ts.
 */
import fs from "node:fs";
import type { Command } from "commander";
import type { HooksConfig } from "../config/types";
import type { ModuleLogger } from "../core/logger";
import type { PluginApi } from "../host-contract/host-api";
import { dryRunHook, type DryRunFailure, type DryRunRequest } from "../intake/dry-run";
import { formatDryRun } from "../mappings/dry-run-report";
import type { MappingEngine } from "../mappings/engine";
import { DryRunCommandError, dryRunCommandErrors } from "./dry-run-failure";
import type { DeliveryDetail } from "../core/inspection";
import { GatewayClientError, idSegment } from "./gateway-client";
import { CONFIG_HELP, gatewayClientFor } from "./ledger-commands";
import { cliOutput } from "./output";

export interface DryRunDeps {
  api: PluginApi;
  config: HooksConfig;
  mappings: MappingEngine;
  logs: { forModule(name: string): ModuleLogger };
}

interface DryRunOptions {
  payload?: string;
  delivery?: string;
  url?: string;
  config?: string;
  header: string[];
  query: string[];
  json?: boolean;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function parseHeaders(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    const i = h.indexOf(":");
    const name = i > 0 ? h.slice(0, i).trim().toLowerCase() : "";
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) throw dryRunCommandErrors.headerMalformed({ header: h });
    out[name] = h.slice(i + 1).trim();
  }
  return out;
}

function parseQuery(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of list) {
    const i = q.indexOf("=");
    if (i <= 0) throw dryRunCommandErrors.queryMalformed({ query: q });
    out[q.slice(0, i)] = q.slice(i + 1);
  }
  return out;
}

function readPayloadFile(file: string): Buffer {
  try {
    return file === "-" ? fs.readFileSync(0) : fs.readFileSync(file);
  } catch (e) {
    throw dryRunCommandErrors.payloadUnreadable({ file, reason: (e as NodeJS.ErrnoException).code ?? (e as Error).message });
  }
}

/** The failure as this command words it: the payload named by its file, the log pointed at for a transform's cause. */
function failureText(f: DryRunFailure, opts: DryRunOptions, config: HooksConfig): string {
  const first =
    f.reason === "direct_endpoint"
      ? dryRunCommandErrors.directEndpoint({ failure: f.message, hooksPath: config.path })
      : f.reason === "invalid_body"
        ? opts.delivery !== undefined
          ? { message: `delivery ${opts.delivery}: ${f.message}` }
          : dryRunCommandErrors.payloadInvalid({ file: opts.payload ?? "-", failure: f.message })
        : f.code === "transform_failed"
          ? dryRunCommandErrors.transformFailed({ failure: f.message })
          : undefined;
  return [first?.message ?? f.message, ...f.lines].join("\n");
}

/** The request a stored delivery holds, fetched from the running gateway's ledger. */
async function storedRequest(deps: DryRunDeps, id: string, url: string | undefined): Promise<Pick<DryRunRequest, "headers" | "query" | "body">> {
  const { delivery } = (await gatewayClientFor(deps, url).get(`/deliveries/${idSegment(id)}`)) as { delivery: DeliveryDetail };
  const body =
    delivery.body !== undefined
      ? Buffer.from(delivery.body, "utf8")
      : delivery.bodyBase64 !== undefined
        ? Buffer.from(delivery.bodyBase64, "base64")
        : undefined;
  if (!body) throw dryRunCommandErrors.deliveryWithoutBody({ id });
  const search = delivery.url.includes("?") ? delivery.url.slice(delivery.url.indexOf("?") + 1) : "";
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(search)) if (!(k in query) && k.toLowerCase() !== "token") query[k] = v;
  return { headers: { ...delivery.headers }, query, body };
}

/** Adds `test` to the `webhooks` command group. */
export function registerDryRunCommand(webhooks: Command, deps: DryRunDeps): void {
  const log = deps.logs.forModule("mappings");
  webhooks
    .command("test")
    .description("Dry-run a mapped hook: show which mapping matches and the exact action, without dispatching anything")
    .argument("<name>", "hook name: the sub-path after hooks.path, e.g. github for POST /hooks/github")
    .option("--payload <file>", "JSON body to test with (- reads stdin)")
    .option("--delivery <id>", "instead of --payload: the body, headers and query of a delivery in the running gateway's ledger")
    .option("--url <url>", "with --delivery: the gateway's hooks URL (default: where the gateway of this config runs, else from the config)")
    .option("--header <name:value>", "a request header, repeatable (content-type selects JSON or form parsing)", collect, [])
    .option("--query <name=value>", "a query parameter, repeatable", collect, [])
    .option("--json", "print the report as JSON")
    // Read by the host before plugins activate (it decides which config the mappings come from).
    .option("-c, --config <file>", CONFIG_HELP)
    .action(async (name: string, opts: DryRunOptions, cmd: Command) => {
      const out = cliOutput(cmd, deps.api.configSection);
      const fail = (message: string): never => {
        if (opts.json) out.json({ ok: false, error: message, dispatched: false });
        return out.fail(`webhooks test: ${message}`, "webhooks.test.failed");
      };
      let request: DryRunRequest;
      try {
        if ((opts.payload === undefined) === (opts.delivery === undefined)) throw dryRunCommandErrors.payloadOrDelivery();
        const stored = opts.delivery !== undefined ? await storedRequest(deps, opts.delivery, opts.url) : undefined;
        request = stored
          ? { name, headers: { ...stored.headers, ...parseHeaders(opts.header) }, query: { ...stored.query, ...parseQuery(opts.query) }, body: stored.body }
          : { name, headers: parseHeaders(opts.header), query: parseQuery(opts.query), body: readPayloadFile(opts.payload!) };
      } catch (e) {
        if (!(e instanceof DryRunCommandError) && !(e instanceof GatewayClientError)) throw e;
        return fail(e.message);
      }
      const result = await dryRunHook(request, { config: deps.config, runtime: deps.api.runtime, mappings: deps.mappings });
      if (!result.ok) return fail(failureText(result.error, opts, deps.config));
      // The report's config keys named where the host keeps the section (its payload-derived text is left as it is).
      const report = {
        ...result.value,
        mapping: { ...result.value.mapping, key: out.named(result.value.mapping.key) },
        ...(result.value.signature ? { signature: { ...result.value.signature, key: out.named(result.value.signature.key) } } : {}),
      };
      log.info("dry run", { hook: report.hook, mappingId: report.mapping.id, outcome: report.outcome });
      if (opts.json) out.json({ ok: true, ...report });
      else out.text(formatDryRun(report));
    });
}
