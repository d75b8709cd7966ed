/**
 * `gateway webhooks deliveries replay --hook github --status 5xx --since 1h [--search …] [--yes] [--json]`
 * (inside OpenClaw `openclaw inbound-webhooks deliveries replay …`: the same code): the bulk replay of
 * docs/ledger.md#bulk-replay-by-filter over the running gateway's hook API. It asks for the preview,
 * prints what would be replayed, asks `Replay these N deliveries? [y/N]` on a terminal (`--yes` answers
 * it; without a terminal and without `--yes` nothing is replayed, exit 1), then confirms with the
 * preview's `confirm`. A relative `--since` (`90m`, `1h`, `7d`) is turned into a time once, so the
 * preview and the confirmation send the same filter. Exit 1 when a replay was answered with an error.
 */
import readline from "node:readline";
import { gatewayClientErrors, type GatewayAnswer, type GatewayClient } from "./gateway-client";
import { cell, type CliOutput } from "./output";
import type { BulkReplayPreview, BulkReplayResult } from "../core/bulk-replay";

export interface BulkReplayOptions {
  hook?: string;
  status?: string;
  since?: string;
  search?: string;
  yes?: boolean;
  json?: boolean;
}

export type Stdin = NodeJS.ReadableStream & { isTTY?: boolean };

/** A confirmation replays up to 1,000 deliveries one after the other: longer than a read. */
const CONFIRM_TIMEOUT_MS = 10 * 60_000;
const UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const RELATIVE = /^(\d{1,5})([smhd])$/;

/** `--since`: a duration back from now (`1h`) as an ISO time, anything else as given (the gateway checks it). */
export function sinceTime(since: string | undefined, now: number): string | undefined {
  const m = since === undefined ? null : RELATIVE.exec(since);
  return m ? new Date(now - Number(m[1]) * UNITS_MS[m[2]!]!).toISOString() : since;
}

/** True when the options name a filter (a bulk replay) rather than nothing. */
export function hasFilter(opts: BulkReplayOptions): boolean {
  return [opts.hook, opts.status, opts.since, opts.search].some((v) => v !== undefined);
}

function bulkQuery(params: Record<string, string | undefined>): string {
  return `?${new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString()}`;
}

/** The gateway's answer, or its refusal as the client's error (one line, exit 1). */
function answered<T>(client: GatewayClient, path: string, answer: GatewayAnswer, key: "preview" | "replay"): T {
  const value = answer.body?.[key];
  if (answer.status === 200 && value && typeof value === "object") return value as T;
  throw gatewayClientErrors.refused({
    url: `${client.baseUrl}${path}`,
    status: answer.status,
    code: String(answer.body?.code ?? ""),
    error: String(answer.body?.error ?? ""),
  });
}

function previewText(p: BulkReplayPreview): string {
  const filter = Object.entries(p.filter)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const others =
    p.notReplayable > 0 ? `; ${p.notReplayable} more match but are not replayed (replays, refused before authentication, stored without body)` : "";
  const more = p.count > p.ids.length ? ` … and ${p.count - p.ids.length} more` : "";
  const ids = p.count > 0 ? `Oldest first: ${p.ids.map(cell).join(", ")}${more}\n` : "";
  return `Bulk replay of ${cell(filter)}: ${p.count} ${p.count === 1 ? "delivery" : "deliveries"} received up to ${p.until}${others}\n${ids}`;
}

function resultText(r: BulkReplayResult): string {
  const byStatus = new Map<string, number>();
  for (const item of r.replayed) {
    const key = `${item.status}${item.code ? ` ${item.code}` : ""}`;
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  }
  const summary = [...byStatus].map(([k, n]) => `${n} × ${k}`).join(", ");
  const rows = r.replayed.map(
    (i) => `${cell(i.replayOf)} → ${i.deliveryId ? cell(i.deliveryId) : "(not replayed)"}  ${i.status}${i.code ? ` ${cell(i.code)}` : ""}\n`,
  );
  return `${r.repeated ? "Already replayed by this confirmation" : "Replayed"} ${r.count} ${r.count === 1 ? "delivery" : "deliveries"}: ${summary || "none"}\n${rows.join("")}`;
}

/** One answer line from a terminal: true for y / yes. */
function ask(stdin: Stdin, out: CliOutput, question: string): Promise<boolean> {
  out.text(question);
  const rl = readline.createInterface({ input: stdin, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    rl.once("line", (line) => {
      answered = true;
      rl.close();
      resolve(/^\s*y(es)?\s*$/i.test(line));
    });
    rl.once("close", () => {
      if (!answered) resolve(false);
    });
  });
}

export async function bulkReplayCommand(out: CliOutput, client: GatewayClient, opts: BulkReplayOptions, stdin: Stdin, now: number): Promise<void> {
  const filter = { hook: opts.hook, status: opts.status, since: sinceTime(opts.since, now), search: opts.search };
  const previewPath = `/deliveries/replay${bulkQuery(filter)}`;
  const preview = answered<BulkReplayPreview>(client, previewPath, await client.post(previewPath), "preview");
  if (!opts.json) out.text(previewText(preview));
  if (preview.count === 0) {
    if (opts.json) out.json({ preview });
    else out.text("Nothing to replay.\n");
    return;
  }
  if (!opts.yes) {
    if (stdin.isTTY !== true) {
      if (opts.json) out.json({ preview });
      out.fail(
        `webhooks: not confirmed: pass --yes to replay the ${preview.count} deliveries without asking (stdin is not a terminal); nothing was replayed`,
        "webhooks.replay.unconfirmed",
      );
    }
    if (!(await ask(stdin, out, `Replay these ${preview.count} deliveries? [y/N] `)))
      out.fail("webhooks: not confirmed; nothing was replayed", "webhooks.replay.unconfirmed");
  }
  const confirmPath = `/deliveries/replay${bulkQuery({ ...filter, confirm: preview.confirm })}`;
  const result = answered<BulkReplayResult>(client, confirmPath, await client.post(confirmPath, { timeoutMs: CONFIRM_TIMEOUT_MS }), "replay");
  if (opts.json) out.json({ preview, replay: result });
  else out.text(resultText(result));
  if (result.failed > 0)
    out.fail(
      `webhooks: ${result.failed} of the ${result.count} replays were answered with an error (listed above); each is recorded as its new delivery`,
      "webhooks.replay.refused",
    );
}
