/**
 * `gateway webhooks deliveries list|show <id>|replay <id>|replay --hook … --status … --since …` (bulk, bulk-replay-command.ts) and
 * `gateway webhooks runs list|show <id>` (SPEC §11): the delivery ledger and the
 * runs of the running gateway, read over its hook API (src/cli/gateway-client.ts).
 * A table by default (100 columns; `--wide` for every column), the API's JSON with
 * `--json`; all output through src/cli/output.ts. Failures (a gateway that does not
 * answer, an unknown id, a replay whose answer is an error) go to stderr, exit 1.
 */
import type { Command } from "commander";
import type { HooksConfig } from "../config/types";
import { hooksBaseUrl } from "../config/mail-hook-url";
import { resolveHooksSecrets } from "../config/resolve";
import type { PluginApi } from "../host-contract/host-api";
import type { DeliveryDetail, DeliverySummary, RunSummary } from "../core/inspection";
import { createGatewayClient, GatewayClientError, gatewayClientErrors, idSegment, type GatewayClient } from "./gateway-client";
import { deliveryTable, deliveryText, runTable, runText } from "./ledger-text";
import { cliOutput, type CliOutput } from "./output";
import { bulkReplayCommand, hasFilter, type BulkReplayOptions, type Stdin } from "./bulk-replay-command";

export interface LedgerCommandDeps {
  api: PluginApi;
  config: HooksConfig;
  /** Where a bulk replay reads its confirmation (default process.stdin; tests give their own). */
  stdin?: Stdin;
}

interface CommonOptions {
  json?: boolean;
  url?: string;
}

/**
 * The client of this config's gateway (its hook token read now): at `--url`, else where the
 * gateway of this config runs now (the host says: its port may not be `gateway.port`), else at
 * the config's address.
 */
export function gatewayClientFor(deps: LedgerCommandDeps, url: string | undefined): GatewayClient {
  if (!deps.config.enabled) throw gatewayClientErrors.hooksDisabled();
  const { token } = resolveHooksSecrets(deps.config, { configDir: deps.api.configDir });
  return createGatewayClient({ baseUrl: url ?? hooksBaseUrl(deps.api.config, deps.api.runningGatewayUrl?.()), token });
}

const query = (params: Record<string, string | undefined>): string => {
  const q = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
  return q ? `?${q}` : "";
};

/** Runs a command body with the command's output; a client failure is one line on stderr and exit 1. */
function action<A extends unknown[]>(cmd: Command, configSection: string | undefined, fn: (out: CliOutput, ...args: A) => Promise<void>) {
  return async (...args: A): Promise<void> => {
    const out = cliOutput(cmd, configSection);
    try {
      await fn(out, ...args);
    } catch (e) {
      if (!(e instanceof GatewayClientError)) throw e;
      out.fail(`webhooks: ${e.message}`, "webhooks.gateway");
    }
  };
}

const URL_HELP = "the gateway's hooks URL (default: where the gateway of this config runs, else http://<gateway.bind>:<gateway.port><hooks.path>)";
/** Where the gateway finds the config when --config is not given (as `gateway start --help` says). */
export const CONFIG_HELP = "gateway config file (default: $GATEWAY_CONFIG, ./gateway.config.json, else the demo default)";

export function registerLedgerCommands(webhooks: Command, deps: LedgerCommandDeps): void {
  const deliveries = webhooks.command("deliveries").description("The delivery ledger of the running gateway: what arrived, what it got, replay");
  const list = deliveries.command("list").description("List deliveries, newest first");
  list
    .option("--hook <name>", "only this hook (wake, agent or a mapped name)")
    .option("--status <code>", "an HTTP status (404) or a class (4xx)")
    .option("--limit <n>", "at most this many (1–500, default 50)")
    .option("--before <id>", "only deliveries older than this one (the next page)")
    .option(
      "--search <words>",
      "only deliveries whose hook, event, status code or body has every term of the words (runs of letters and digits, each matched whole; at most 16)",
    )
    .option("--wide", "every column, uncut: time, method, event, badges, mapping, run ids, latency, replay of (wider than 100 columns)")
    .option("--json", "print the API's JSON")
    .option("--url <url>", URL_HELP)
    .option("-c, --config <file>", CONFIG_HELP)
    .action(
      action(
        list,
        deps.api.configSection,
        async (out, opts: CommonOptions & { hook?: string; status?: string; limit?: string; before?: string; search?: string; wide?: boolean }) => {
          const body = await gatewayClientFor(deps, opts.url).get(
            `/deliveries${query({ hook: opts.hook, status: opts.status, limit: opts.limit, before: opts.before, search: opts.search })}`,
          );
          if (opts.json) out.json(body);
          else out.text(deliveryTable(body.deliveries as DeliverySummary[], { wide: opts.wide === true, now: Date.now() }));
        },
      ),
    );
  const show = deliveries.command("show").description("Show one delivery: redacted headers, the raw body, the answer").argument("<id>", "delivery id");
  show
    .option("--json", "print the API's JSON")
    .option("--url <url>", URL_HELP)
    .option("-c, --config <file>", CONFIG_HELP)
    .action(
      action(show, deps.api.configSection, async (out, id: string, opts: CommonOptions) => {
        const body = await gatewayClientFor(deps, opts.url).get(`/deliveries/${idSegment(id)}`);
        if (opts.json) out.json(body);
        else out.text(deliveryText(body.delivery as DeliveryDetail));
      }),
    );
  const replay = deliveries
    .command("replay")
    .description(
      "Run a stored delivery again through today's mappings (signatures not re-checked, idempotency bypassed); exits 1 when the answer is an error. " +
        "With a filter instead of an id: every delivery it matches (at most 1000), after a preview and a confirmation",
    )
    .argument("[id]", "delivery id (or a filter: --hook, --status, --since, --search)");
  replay
    .option("--hook <name>", "bulk: only this hook")
    .option("--status <code>", "bulk: an HTTP status (503) or a class (5xx)")
    .option("--since <time>", "bulk: received at or after this ISO-8601 time, or this long ago (90m, 1h, 7d)")
    .option("--search <words>", "bulk: only deliveries with every term of the words (as deliveries list --search)")
    .option("--yes", "bulk: replay what the preview counted without asking (needed when stdin is not a terminal)")
    .option("--json", "print the answer as JSON")
    .option("--url <url>", URL_HELP)
    .option("-c, --config <file>", CONFIG_HELP)
    .action(
      action(replay, deps.api.configSection, async (out, id: string | undefined, opts: CommonOptions & BulkReplayOptions) => {
        if (id !== undefined && hasFilter(opts))
          out.fail("webhooks: give a delivery id or a filter (--hook, --status, --since, --search), not both; nothing was sent", "webhooks.usage");
        if (id === undefined) {
          if (!hasFilter(opts))
            out.fail(
              "webhooks: give a delivery id, or a filter (--hook, --status, --since, --search) to replay every delivery it matches; nothing was sent",
              "webhooks.usage",
            );
          return bulkReplayCommand(out, gatewayClientFor(deps, opts.url), opts, deps.stdin ?? process.stdin, Date.now());
        }
        const answer = await gatewayClientFor(deps, opts.url).post(`/deliveries/${idSegment(id)}/replay`);
        const deliveryId = answer.headers.get("x-delivery-id") ?? undefined;
        if (opts.json) out.json({ status: answer.status, deliveryId, body: answer.body ?? null });
        else
          out.text(
            `${deliveryId ? `Replayed ${id} as delivery ${deliveryId}` : `Replay of ${id}`}: ${answer.status}\n${answer.body ? `${JSON.stringify(answer.body, null, 2)}\n` : ""}`,
          );
        if (answer.status >= 400) {
          const code = typeof answer.body?.code === "string" ? ` ${answer.body.code}` : "";
          out.fail(
            `webhooks: the replay of ${id} was answered ${answer.status}${code}: ${String(answer.body?.error ?? "an error")}`,
            "webhooks.replay.refused",
          );
        }
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
      action(runList, deps.api.configSection, async (out, opts: CommonOptions & { status?: string; limit?: string }) => {
        const body = await gatewayClientFor(deps, opts.url).get(`/runs${query({ status: opts.status, limit: opts.limit })}`);
        if (opts.json) out.json(body);
        else out.text(runTable(body.runs as RunSummary[]));
      }),
    );
  const runShow = runs.command("show").description("Show one run").argument("<id>", "run id");
  runShow
    .option("--json", "print the API's JSON")
    .option("--url <url>", URL_HELP)
    .option("-c, --config <file>", CONFIG_HELP)
    .action(
      action(runShow, deps.api.configSection, async (out, id: string, opts: CommonOptions) => {
        const body = await gatewayClientFor(deps, opts.url).get(`/runs/${idSegment(id)}`);
        if (opts.json) out.json(body);
        else out.text(runText(body.run as RunSummary));
      }),
    );
}
