/**
 * `gateway webhooks deliveries list|show <id>|replay <id>` and
 * `gateway webhooks runs list|show <id>` (SPEC §11): the delivery ledger and the
 * runs of the running gateway, read over its hook API (src/cli/gateway-client.ts).
 * A table by default, the API's JSON with `--json`. Failures go to stderr, exit 1.
 */
import type { Command } from "commander";
import type { HooksConfig } from "../config/types";
import { hooksBaseUrl } from "../config/mail-hook-url";
import { resolveHooksSecrets } from "../config/resolve";
import type { PluginApi } from "../host-contract/host-api";
import type { DeliveryDetail, DeliverySummary, RunSummary } from "../host-contract/inspection";
import { createGatewayClient, GatewayClientError, gatewayClientErrors, type GatewayClient } from "./gateway-client";
import { formatTable } from "./table";

export interface LedgerCommandDeps {
  api: PluginApi;
  config: HooksConfig;
}

interface CommonOptions {
  json?: boolean;
  url?: string;
}

/** The client of this config's gateway (its hook token read now). */
export function gatewayClientFor(deps: LedgerCommandDeps, url: string | undefined): GatewayClient {
  if (!deps.config.enabled) throw gatewayClientErrors.hooksDisabled();
  const { token } = resolveHooksSecrets(deps.config, { configDir: deps.api.configDir });
  return createGatewayClient({ baseUrl: url ?? hooksBaseUrl(deps.api.config), token });
}

const query = (params: Record<string, string | undefined>): string => {
  const q = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
  return q ? `?${q}` : "";
};
const enc = encodeURIComponent;

/** Runs a command body; a client failure becomes commander's error (stderr, exit 1). */
function action<A extends unknown[]>(cmd: Command, fn: (write: (s: string) => void, ...args: A) => Promise<void>) {
  return async (...args: A): Promise<void> => {
    const out = cmd.configureOutput();
    const write = out.writeOut ?? ((s: string) => void process.stdout.write(s));
    try {
      await fn(write, ...args);
    } catch (e) {
      if (!(e instanceof GatewayClientError)) throw e;
      cmd.error(`webhooks: ${e.message}`, { exitCode: 1, code: "webhooks.gateway" });
    }
  };
}

function deliveryTable(rows: DeliverySummary[]): string {
  return formatTable(
    ["RECEIVED", "ID", "METHOD", "HOOK", "STATUS", "CODE", "MAPPING", "RUN", "MS", "REPLAY OF"],
    rows.map((d) => [d.receivedAt, d.id, d.method, d.hook ?? "-", String(d.status), d.code ?? "-", d.mappingId ?? "-", d.runIds.join(",") || "-", String(d.latencyMs), d.replayOf ?? "-"]),
    "No deliveries recorded (or none matches the filters).",
  );
}

function deliveryText(d: DeliveryDetail): string {
  const fields: Array<[string, string | undefined]> = [
    ["Id", d.id],
    ["Received", d.receivedAt],
    ["Request", `${d.method} ${d.url}`],
    ["Hook", d.hook],
    ["Mapping", d.mappingId],
    ["Client", d.client],
    ["Status", `${d.status}${d.code ? ` ${d.code}` : ""}`],
    ["Latency", `${d.latencyMs} ms`],
    ["Idempotency key", d.idempotencyKey],
    ["Runs", d.runIds.join(", ") || undefined],
    ["Replay of", d.replayOf],
  ];
  const lines = fields.filter(([, v]) => v !== undefined).map(([k, v]) => `${`${k}:`.padEnd(17)}${v}`);
  const headers = Object.entries(d.headers);
  lines.push("", "Headers (credentials redacted):", ...(headers.length ? headers.map(([k, v]) => `  ${k}: ${v}`) : ["  (not stored)"]));
  lines.push("", "Body:", d.body ?? (d.bodyBase64 ? `(not UTF-8; base64) ${d.bodyBase64}` : "(not stored)"));
  if (d.response !== undefined) lines.push("", "Answer:", JSON.stringify(d.response));
  return `${lines.join("\n")}\n`;
}

function runTable(rows: RunSummary[]): string {
  return formatTable(
    ["CREATED", "ID", "STATUS", "NAME", "SESSION", "FINISHED"],
    rows.map((r) => [r.createdAt, r.id, r.status, r.name, r.sessionKey, r.finishedAt ?? "-"]),
    "No runs (or none with this status).",
  );
}

function runText(r: RunSummary): string {
  const fields: Array<[string, string | undefined]> = [
    ["Id", r.id],
    ["Status", r.status],
    ["Name", r.name],
    ["Session", r.sessionKey],
    ["Created", r.createdAt],
    ["Started", r.startedAt],
    ["Finished", r.finishedAt],
    ["Summary", r.summary],
  ];
  return `${fields.filter(([, v]) => v !== undefined).map(([k, v]) => `${`${k}:`.padEnd(10)}${v}`).join("\n")}\n`;
}

const URL_HELP = "the gateway's hooks URL (default: http://<gateway.bind>:<gateway.port><hooks.path> from the config)";
const CONFIG_HELP = "gateway config file (default: $GATEWAY_CONFIG, else ./gateway.config.json)";

export function registerLedgerCommands(webhooks: Command, deps: LedgerCommandDeps): void {
  const deliveries = webhooks.command("deliveries").description("The delivery ledger of the running gateway: what arrived, what it got, replay");
  const list = deliveries.command("list").description("List deliveries, newest first");
  list
    .option("--hook <name>", "only this hook (wake, agent or a mapped name)")
    .option("--status <code>", "an HTTP status (404) or a class (4xx)")
    .option("--limit <n>", "at most this many (1–500, default 50)")
    .option("--before <id>", "only deliveries older than this one (the next page)")
    .option("--json", "print the API's JSON")
    .option("--url <url>", URL_HELP)
    .option("-c, --config <file>", CONFIG_HELP)
    .action(
      action(list, async (write, opts: CommonOptions & { hook?: string; status?: string; limit?: string; before?: string }) => {
        const body = await gatewayClientFor(deps, opts.url).get(`/deliveries${query({ hook: opts.hook, status: opts.status, limit: opts.limit, before: opts.before })}`);
        write(opts.json ? `${JSON.stringify(body, null, 2)}\n` : deliveryTable(body.deliveries as DeliverySummary[]));
      }),
    );
  const show = deliveries.command("show").description("Show one delivery: redacted headers, the raw body, the answer").argument("<id>", "delivery id");
  show
    .option("--json", "print the API's JSON")
    .option("--url <url>", URL_HELP)
    .option("-c, --config <file>", CONFIG_HELP)
    .action(
      action(show, async (write, id: string, opts: CommonOptions) => {
        const body = await gatewayClientFor(deps, opts.url).get(`/deliveries/${enc(id)}`);
        write(opts.json ? `${JSON.stringify(body, null, 2)}\n` : deliveryText(body.delivery as DeliveryDetail));
      }),
    );
  const replay = deliveries
    .command("replay")
    .description("Run a stored delivery again through today's mappings (signatures not re-checked, idempotency bypassed); exits 1 when the answer is an error")
    .argument("<id>", "delivery id");
  replay
    .option("--json", "print the answer as JSON")
    .option("--url <url>", URL_HELP)
    .option("-c, --config <file>", CONFIG_HELP)
    .action(
      action(replay, async (write, id: string, opts: CommonOptions) => {
        const answer = await gatewayClientFor(deps, opts.url).post(`/deliveries/${enc(id)}/replay`);
        const deliveryId = answer.headers.get("x-delivery-id") ?? undefined;
        if (opts.json) write(`${JSON.stringify({ status: answer.status, deliveryId, body: answer.body ?? null }, null, 2)}\n`);
        else write(`${deliveryId ? `Replayed ${id} as delivery ${deliveryId}` : `Replay of ${id}`}: ${answer.status}\n${answer.body ? `${JSON.stringify(answer.body)}\n` : ""}`);
        if (answer.status >= 400) process.exitCode = 1;
      }),
    );

  const runs = webhooks.command("runs").description("Agent runs of the running gateway");
  const runList = runs.command("list").description("List runs, newest first");
  runList
    .option("--status <status>", "queued, running, succeeded, failed, timed_out or interrupted")
    .option("--limit <n>", "at most this many (1–500, default 50)")
    .option("--json", "print the API's JSON")
    .option("--url <url>", URL_HELP)
    .option("-c, --config <file>", CONFIG_HELP)
    .action(
      action(runList, async (write, opts: CommonOptions & { status?: string; limit?: string }) => {
        const body = await gatewayClientFor(deps, opts.url).get(`/runs${query({ status: opts.status, limit: opts.limit })}`);
        write(opts.json ? `${JSON.stringify(body, null, 2)}\n` : runTable(body.runs as RunSummary[]));
      }),
    );
  const runShow = runs.command("show").description("Show one run").argument("<id>", "run id");
  runShow
    .option("--json", "print the API's JSON")
    .option("--url <url>", URL_HELP)
    .option("-c, --config <file>", CONFIG_HELP)
    .action(
      action(runShow, async (write, id: string, opts: CommonOptions) => {
        const body = await gatewayClientFor(deps, opts.url).get(`/runs/${enc(id)}`);
        write(opts.json ? `${JSON.stringify(body, null, 2)}\n` : runText(body.run as RunSummary));
      }),
    );
}
