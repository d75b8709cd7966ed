/** The Mappings page: the effective mappings in match order, and the dry-run form. */
import type { DryRunView, MappingSummary } from "../../core/inspection";
import { html } from "../../host-contract/html";
import { CSRF_FIELD } from "../../host-contract/csrf";
import { renderDryRun } from "./delivery-view";

export interface DryRunForm {
  hook: string;
  headers: string;
  body: string;
}

export interface MappingsPageData {
  mappings: MappingSummary[];
  csrf?: string;
  form?: DryRunForm;
  result?: DryRunView;
  problem?: string;
  /** Where the host mounts the pages (`/ui`). */
  base: string;
  /** Set where the host hands over GET and HEAD only (OpenClaw's frame): the dry-run command, shown instead of the form. */
  dryRunCommand?: string;
}

export function renderMappingsContent(data: MappingsPageData) {
  const f = data.form ?? { hook: "", headers: "content-type: application/json", body: "" };
  return html`${
    data.mappings.length === 0
      ? html`<p>No mappings are configured: only the built-in hooks answer.</p>`
      : html`<table class="mappings reflow">
<caption class="visually-hidden">Effective mappings in match order</caption>
<thead><tr><th scope="col">#</th><th scope="col">Id</th><th scope="col">Origin</th><th scope="col">Match</th><th scope="col">Action</th><th scope="col">Verify</th><th scope="col">Shadowed</th></tr></thead>
<tbody>${data.mappings.map(
          (m, i) => html`<tr${m.shadowedBy ? html` class="shadowed"` : ""}>
<td class="num" data-label="#">${i + 1}</td><td data-label="Id"><code>${m.id}</code></td><td data-label="Origin">${m.origin}</td>
<td data-label="Match"><ul class="plain">${m.match.map((r) => html`<li><code>${r}</code></li>`)}</ul></td>
<td data-label="Action">${m.action}</td><td data-label="Verify">${m.verify ?? "none"}</td>
<td data-label="Shadowed">${m.shadowedBy ? html`<strong class="warn">shadowed by <code>${m.shadowedBy}</code></strong>` : "no"}</td></tr>`,
        )}</tbody></table>`
  }
<section aria-labelledby="h-dry-form"><h2 id="h-dry-form">Dry run</h2>
${
  data.dryRunCommand !== undefined
    ? html`<p id="dry-run-command">This view is read-only here: dry-run a payload from a shell where the gateway runs (nothing is dispatched).</p>
<pre class="text" data-copy="Copy the command">${data.dryRunCommand}</pre>`
    : html`<p class="muted">Paste a payload and its headers to see what the request would do. Nothing is dispatched.</p>
<form method="post" action="${data.base}/mappings/dry-run" class="dry-run-form">
${data.csrf ? html`<input type="hidden" name="${CSRF_FIELD}" value="${data.csrf}">` : ""}
<label for="dry-hook">Hook (the path after the hooks prefix)</label>
<input id="dry-hook" name="hook" value="${f.hook}" required maxlength="200" placeholder="github">
<label for="dry-headers">Headers (one <code>name: value</code> per line)</label>
<textarea id="dry-headers" name="headers" rows="3">\n${f.headers}</textarea>
<label for="dry-body">Body</label>
<textarea id="dry-body" name="body" rows="6">\n${f.body}</textarea>
<button type="submit">Dry run</button>
</form>`
}
${data.problem ? html`<p class="error" role="alert">${data.problem}</p>` : ""}
${data.result ? renderDryRun(data.result) : ""}</section>`;
}

/** `name: value` lines → a header record (lower-case names); the first bad line is named. */
export function parseHeaderLines(text: string): { ok: true; headers: Record<string, string> } | { ok: false; problem: string } {
  const headers: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : "";
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) return { ok: false, problem: `headers line ${i + 1} must be "name: value" with a valid header name.` };
    headers[name] = line.slice(colon + 1).trim();
  }
  return { ok: true, headers };
}
