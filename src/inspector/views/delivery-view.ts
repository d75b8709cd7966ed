/**
 * One delivery: the event at the top with its badges, the request line, the
 * facts, Replay (its result shown after the POST → redirect → GET), the request
 * as a redacted curl command, the redacted headers, the body (pretty, with its raw
 * form behind a toggle), the answer and its headers, the dry-run view of what
 * today's mappings make of it, its runs, and the journal effects (line breaks
 * kept, the wrapper's SECURITY NOTICE folded to one line by journal-effects.ts).
 */
import type { DeliveryDetail, DryRunView, ReplayResult, RunSummary } from "../../core/inspection";
import { html, type SafeHtml } from "../../host-contract/html";
import type { JournalEffect } from "../journal-effects";
import { CSRF_FIELD } from "../../host-contract/csrf";
import { bodyText, prettyJson } from "./body-view";
import { curlCommand, HOOK_TOKEN_VARIABLE } from "./curl-command";
import { deliveryBadges, renderBadges } from "./delivery-row";
import { displayTime } from "./time-format";

export interface DeliveryPageData {
  delivery: DeliveryDetail;
  runs: Array<{ id: string; run?: RunSummary }>;
  dryRun?: DryRunView;
  /** Why no dry run is shown (no body stored, no hook …). */
  dryRunNote?: string;
  /** The CSRF token of a cookie session (absent for Bearer access). */
  csrf?: string;
  replay?: { result?: ReplayResult; error?: string };
  /** What the journal recorded of this delivery's wake or runs; undefined when the dashboard has no journal. */
  effects?: JournalEffect[];
  /** `http://host:port` as the browser reached the gateway (for the curl command). */
  origin: string;
  /** Where the host mounts the pages (`/ui`). */
  base: string;
  /** Set where the host hands over GET and HEAD only (OpenClaw's frame): the command that replays, shown instead of the button. */
  replayCommand?: string;
}

function dl(entries: Array<[string, unknown]>): SafeHtml {
  return html`<dl class="facts">${entries.filter(([, v]) => v !== undefined && v !== "").map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}

function timeline(run: RunSummary): SafeHtml {
  const steps: Array<[string, string | undefined]> = [
    ["queued", run.createdAt],
    ["running", run.startedAt],
    [run.status, run.finishedAt],
  ];
  return html`<ol class="timeline">${steps
    .filter(([, at]) => at !== undefined)
    .map(([s, at]) => html`<li><span class="run-${s}">${s}</span> <time datetime="${at}">${displayTime(at!)}</time></li>`)}</ol>`;
}

function runSection(runs: DeliveryPageData["runs"]): SafeHtml {
  if (runs.length === 0) return html`<p class="muted">This request started no run.</p>`;
  return html`${runs.map(({ id, run }) =>
    run
      ? html`<article class="run"><h3>Run <code>${id}</code>: <span class="run-${run.status}">${run.status}</span></h3>
${dl([
  ["Action", run.name],
  ["Session", run.sessionKey],
])}${timeline(run)}
${run.summary !== undefined ? html`<h4>Summary</h4><pre class="text">\n${run.summary}</pre>` : ""}</article>`
      : html`<article class="run"><h3>Run <code>${id}</code></h3><p class="muted">No longer in the run store.</p></article>`,
  )}`;
}

function effectsSection(effects: JournalEffect[] | undefined): SafeHtml {
  if (effects === undefined) return html`<p class="muted">This gateway gave the dashboard no journal.</p>`;
  if (effects.length === 0) return html`<p class="muted" id="journal-effects-none">No journal entry matches this delivery (yet).</p>`;
  return html`<ol class="timeline journal" id="journal-effects">${effects.map(
    (e) => html`<li><time datetime="${e.ts}" class="nowrap">${displayTime(e.ts)}</time> <strong>${e.kind}</strong> ${e.text}</li>`,
  )}</ol>`;
}

function replaySection(d: DeliveryDetail, data: DeliveryPageData): SafeHtml {
  const r = data.replay;
  const result = r?.result
    ? html`<p id="replay-result" role="status" class="ok">Replayed: status <span class="status s${String(r.result.status).charAt(0)}xx">${r.result.status}</span>, new delivery <a href="${data.base}/deliveries/${encodeURIComponent(r.result.deliveryId)}">${r.result.deliveryId}</a>.</p><pre class="text">${prettyJson(r.result.body)}</pre>`
    : r?.error
      ? html`<p id="replay-result" role="alert" class="error">${r.error}</p>`
      : "";
  if (data.replayCommand !== undefined)
    return html`<p id="replay-command">This view is read-only here: replay the delivery from a shell where the gateway runs.</p>
<pre class="text" data-copy="Copy the command">${data.replayCommand}</pre>${result}`;
  return html`<form method="post" action="${data.base}/deliveries/${encodeURIComponent(d.id)}/replay">
${data.csrf ? html`<input type="hidden" name="${CSRF_FIELD}" value="${data.csrf}">` : ""}
<button type="submit">Replay</button> <span class="muted">Runs this request again through today's mappings (signatures are not re-checked).</span>
</form>${result}`;
}

function headerTable(id: string, headers: Record<string, string>): SafeHtml {
  const rows = Object.entries(headers).sort(([a], [b]) => a.localeCompare(b));
  return html`<table class="headers reflow" id="${id}"><thead><tr><th scope="col">Name</th><th scope="col">Value</th></tr></thead><tbody>
${rows.map(([k, v]) => html`<tr><th scope="row">${k}</th><td><code>${v}</code></td></tr>`)}
</tbody></table>`;
}

/*
 * The HTML parser drops one line feed right after <pre> and <textarea>: sender text that
 * starts with a blank line goes after a line feed of ours, so it keeps its own.
 */
function requestSection(d: DeliveryDetail, origin: string): SafeHtml {
  const body = bodyText(d.body, d.bodyBase64, d.headers["content-type"]);
  const raw = d.body ?? d.bodyBase64;
  return html`<section aria-labelledby="h-curl"><h2 id="h-curl">As curl <span class="muted">(secrets named, never shown)</span></h2>
<p class="muted" id="curl-note">Export the hook token first (<code>export ${HOOK_TOKEN_VARIABLE}=…</code>): the command sends it where the request carried one, and nothing else from your shell. Any other value kept as [REDACTED] (a signature, a cookie) is sent as that text: sign the body again to send it signed.</p>
<pre id="curl" class="text" data-copy="Copy as curl">${curlCommand(d, origin)}</pre></section>
<section aria-labelledby="h-headers"><h2 id="h-headers">Headers</h2>${headerTable("request-headers", d.headers)}</section>
<section aria-labelledby="h-body"><h2 id="h-body">Body <span class="muted">(${body.kind})</span></h2>
${
  body.kind === "none"
    ? html`<p class="muted">The body was not stored.</p>`
    : html`<pre id="body" class="text" data-view="pretty">\n${body.text}</pre>${raw !== undefined && raw !== body.text ? html`<pre id="body-raw" class="text" data-view="raw" hidden>\n${raw}</pre>` : ""}`
}</section>`;
}

function answerSection(d: DeliveryDetail): SafeHtml {
  return html`<section aria-labelledby="h-response"><h2 id="h-response">Answer</h2><pre class="text">${d.response === undefined ? "(not recorded)" : prettyJson(d.response)}</pre>
${d.responseHeaders ? html`<h3>Answer headers</h3>${headerTable("response-headers", d.responseHeaders)}` : ""}</section>`;
}

export function renderDeliveryContent(data: DeliveryPageData): SafeHtml {
  const d = data.delivery;
  return html`<p class="event-title" id="delivery-event">${d.event ? html`<code>${d.event}</code>` : html`<span class="muted">No event named</span>`}${renderBadges(deliveryBadges(d))}</p>
<p class="request-line"><code>${d.method} ${d.url}</code> <span class="status s${String(d.status).charAt(0)}xx">${d.status}</span> ${d.code ?? ""}</p>
${dl([
  ["Received (UTC)", displayTime(d.receivedAt)],
  ["Hook", d.hook],
  ["Event", d.event],
  ["Mapping", d.mappingId],
  ["Client", d.client],
  ["Latency", `${Math.round(d.latencyMs)} ms${d.waited ? " (waited for its run: Prefer: wait)" : ""}`],
  ["Idempotency key", d.idempotencyKey],
  ["Idempotent repeat", d.repeat ? "yes: the earlier request's answer was sent again; nothing new started" : undefined],
  ["Replay of", d.replayOf ? html`<a href="${data.base}/deliveries/${encodeURIComponent(d.replayOf)}">${d.replayOf}</a>` : undefined],
])}
<section aria-labelledby="h-replay"><h2 id="h-replay">Replay</h2>${replaySection(d, data)}</section>
${requestSection(d, data.origin)}
${answerSection(d)}
<section aria-labelledby="h-dry"><h2 id="h-dry">What the mapping produces (dry run)</h2>
${data.dryRun ? renderDryRun(data.dryRun) : html`<p class="muted">${data.dryRunNote ?? "No dry run."}</p>`}</section>
<section aria-labelledby="h-runs"><h2 id="h-runs">Runs</h2>${runSection(data.runs)}</section>
<section aria-labelledby="h-journal"><h2 id="h-journal">Journal effects</h2>${effectsSection(data.effects)}</section>`;
}

/** A dry run's verdict: its report lines and the action it would take. */
export function renderDryRun(v: DryRunView): SafeHtml {
  return html`<div class="dry-run ${v.ok ? "ok" : "error"}" id="dry-run-result">
<p>${v.ok ? "Accepted" : "Refused"}${v.mappingId ? html` by mapping <code>${v.mappingId}</code>` : ""}</p>
<pre class="text">${v.lines.join("\n")}</pre>
${v.action ? html`<h3>Action</h3><pre class="text">${prettyJson(v.action)}</pre>` : ""}</div>`;
}
