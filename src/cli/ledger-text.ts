/**
 * How `gateway webhooks deliveries|runs` show the ledger and the runs as text: a
 * table that fits 100 columns (`--wide`: every column), one delivery or run as
 * fields. Every value a sender could choose goes through `cell()` (control
 * characters escaped, src/cli/output.ts); a JSON body is pretty-printed; the
 * untrusted-content notice in a summary is folded to one short line (the run's
 * record and the model keep it whole).
 */
import { foldUntrustedNotice } from "../host-contract/untrusted-notice";
import type { DeliveryDetail, DeliverySummary, RunSummary } from "../core/inspection";
import { cell } from "./output";
import { formatTable } from "./table";

/** Widest a hook name with its event, or an error code, is shown in the narrow list (longer ones end in "…"). */
const HOOK_WIDTH = 26;
const CODE_WIDTH = 14;

/** The badges of a delivery as words (`--wide`) and as letters after the status (`r` repeat, `R` replay, `w` waited). */
function flags(d: DeliverySummary): Array<[string, string]> {
  return [
    ...(d.repeat ? [["repeat", "r"] as [string, string]] : []),
    ...(d.replayOf ? [["replay", "R"] as [string, string]] : []),
    ...(d.waited ? [["waited", "w"] as [string, string]] : []),
  ];
}

/** `text` cut to `width` characters, ending in "…" when cut (after escaping: what is shown is what is counted). */
export function fit(text: string, width: number): string {
  const chars = Array.from(text);
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`;
}

/** How long ago `iso` was, in the largest whole unit: `12s`, `5m`, `3h`, `2d`. */
export function age(iso: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(s)) return "?";
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

const EMPTY_LIST = "No deliveries recorded (or none matches the filters).";

/**
 * The list: ID, AGE, STATUS (with the badges' letters: `r` idempotent repeat, `R`
 * replay, `w` waited for its run), CODE, HOOK (and the event), RUNS — at most 100
 * columns: ids are 36 characters, hook names and codes are cut; `wide` adds the time,
 * method, event, badges, mapping, run ids, latency and the replayed delivery, uncut.
 */
export function deliveryTable(rows: readonly DeliverySummary[], opts: { wide: boolean; now: number }): string {
  if (opts.wide) {
    return formatTable(
      ["RECEIVED", "ID", "METHOD", "HOOK", "EVENT", "STATUS", "BADGES", "CODE", "MAPPING", "RUN", "MS", "REPLAY OF"],
      rows.map((d) => [
        d.receivedAt,
        d.id,
        cell(d.method),
        cell(d.hook ?? "-"),
        cell(d.event ?? "-"),
        String(d.status),
        flags(d)
          .map(([word]) => word)
          .join(",") || "-",
        d.code ?? "-",
        cell(d.mappingId ?? "-"),
        d.runIds.join(",") || "-",
        String(d.latencyMs),
        d.replayOf ?? "-",
      ]),
      EMPTY_LIST,
    );
  }
  return formatTable(
    ["ID", "AGE", "STATUS", "CODE", "HOOK", "RUNS"],
    rows.map((d) => {
      const letters = flags(d)
        .map(([, letter]) => letter)
        .join("");
      const hook = cell([d.hook ?? "-", ...(d.event ? [d.event] : [])].join(" "));
      return [
        d.id,
        age(d.receivedAt, opts.now),
        `${d.status}${letters ? ` ${letters}` : ""}`,
        fit(d.code ?? "-", CODE_WIDTH),
        fit(hook, HOOK_WIDTH),
        d.runIds.length > 0 ? String(d.runIds.length) : "-",
      ];
    }),
    EMPTY_LIST,
  );
}

/** A body as text: JSON pretty-printed (2 spaces), anything else as it is; each line indented. */
export function deliveryBodyText(body: string): string {
  let text = body;
  const start = body.trimStart()[0];
  if (start === "{" || start === "[") {
    try {
      text = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // Not JSON after all: shown as sent.
    }
  }
  return text
    .split("\n")
    .map((l) => `  ${cell(l)}`)
    .join("\n");
}

/** One delivery: its fields, the redacted headers, the body (pretty when JSON) and the answer. */
export function deliveryText(d: DeliveryDetail): string {
  const fields: Array<[string, string | undefined]> = [
    ["Id", d.id],
    ["Received", d.receivedAt],
    ["Request", `${d.method} ${d.url}`],
    ["Hook", d.hook],
    ["Event", d.event],
    ["Mapping", d.mappingId],
    ["Client", d.client],
    ["Status", `${d.status}${d.code ? ` ${d.code}` : ""}`],
    ["Latency", `${d.latencyMs} ms`],
    ["Idempotency key", d.idempotencyKey],
    ["Runs", d.runIds.join(", ") || undefined],
    ["Replay of", d.replayOf],
    [
      "Badges",
      flags(d)
        .map(([word]) => word)
        .join(", ") || undefined,
    ],
  ];
  const lines = fields.filter(([, v]) => v !== undefined).map(([k, v]) => `${`${k}:`.padEnd(17)}${cell(v!)}`);
  const headers = Object.entries(d.headers);
  lines.push("", "Headers (credentials redacted):", ...(headers.length ? headers.map(([k, v]) => `  ${cell(k)}: ${cell(v)}`) : ["  (not stored)"]));
  lines.push("", "Body:", d.body !== undefined ? deliveryBodyText(d.body) : d.bodyBase64 ? `  (not UTF-8; base64) ${d.bodyBase64}` : "  (not stored)");
  if (d.response !== undefined) lines.push("", "Answer:", deliveryBodyText(JSON.stringify(d.response)));
  return `${lines.join("\n")}\n`;
}

export function runTable(rows: readonly RunSummary[]): string {
  return formatTable(
    ["CREATED", "ID", "STATUS", "NAME", "SESSION", "FINISHED"],
    rows.map((r) => [r.createdAt, r.id, r.status, cell(r.name), cell(r.sessionKey), r.finishedAt ?? "-"]),
    "No runs (or none with this status).",
  );
}

export function runText(r: RunSummary): string {
  const fields: Array<[string, string | undefined]> = [
    ["Id", r.id],
    ["Status", r.status],
    ["Name", r.name],
    ["Session", r.sessionKey],
    ["Created", r.createdAt],
    ["Started", r.startedAt],
    ["Finished", r.finishedAt],
    ["Delivery", r.deliveryId],
  ];
  const lines = fields.filter(([, v]) => v !== undefined).map(([k, v]) => `${`${k}:`.padEnd(10)}${cell(v!)}`);
  if (r.summary !== undefined)
    lines.push(
      "Summary:",
      ...foldUntrustedNotice(r.summary)
        .split("\n")
        .map((l) => `  ${cell(l)}`),
    );
  return `${lines.join("\n")}\n`;
}
