/**
 * The dry run of a mapped hook: a request (hook name, body bytes, headers, query)
 * → which mapping matches and the exact action it would dispatch, parsed and
 * validated exactly like a real request — or why the hook would fail. Templates are
 * rendered and transforms run; nothing is dispatched (no system event, no run, no
 * delivery). No I/O of its own and no CLI: `gateway webhooks test`
 * (src/cli/webhooks-test.ts) reads the payload file and prints the result, and any
 * other front end (a dashboard) can do the same with a request it received.
 *
 * @example
 *   const r = await dryRunHook({ name: "github", body, headers: { "x-github-event": "push" }, query: {} }, { config, mappings, runtime });
 *   if (r.ok) console.log(formatDryRun(r.value));
 */
import { parseRequestBody } from "../actions/body/parse-request-body";
import { validateAction, type ValidationContext } from "../actions/validate";
import { hookNameOf } from "../core/hook-name";
import { err, ok, type ErrorDetail, type Result } from "../core/errors";
import type { MappedHookInput } from "../core/ports";
import { dryRunFailures, type DryRunFailure } from "./dry-run-failures";
import { formatMappingList, type DryRunItem, type DryRunReport } from "./dry-run-report";

export type { DryRunFailure };
import type { MappingEngine } from "./engine";
import { RESERVED_HOOK_NAMES } from "./match";

export interface DryRunRequest {
  /** The hook name: the sub-path after `hooks.path` (slashes are normalised). */
  name: string;
  /** The raw body, parsed like a request body: JSON, or form-encoded when `headers["content-type"]` says so. */
  body: Buffer;
  /** Header names in lower case. */
  headers: Record<string, string>;
  query: Record<string, string>;
}

export interface DryRunDeps {
  config: ValidationContext["config"];
  runtime: ValidationContext["runtime"];
  mappings: Pick<MappingEngine, "dryRun" | "describe" | "verifications">;
}

const detailLines = (details: ErrorDetail[] | undefined): string[] => (details ?? []).map((d) => `  - ${d.field}: ${d.message}`);

/** Runs one dry run. Never dispatches; never throws for a bad request (only for a bug). */
export async function dryRunHook(req: DryRunRequest, deps: DryRunDeps): Promise<Result<DryRunReport, DryRunFailure>> {
  const named = hookNameOf(`/${req.name}`);
  if (!named.ok) return err(dryRunFailures.noMappingMatches({ hook: req.name }, { code: "not_found" }));
  const hook = named.name;
  if (RESERVED_HOOK_NAMES.has(hook)) return err(dryRunFailures.directEndpoint({ hook }));

  const parsed = await parseRequestBody(req.body, { mapped: true, contentType: req.headers["content-type"] ?? "application/json" });
  if (!parsed.ok) return err(dryRunFailures.invalidBody({ error: parsed.error.message, code: parsed.error.code }, { code: parsed.error.code }));

  const qs = new URLSearchParams(Object.entries(req.query).filter(([k]) => k.toLowerCase() !== "token")).toString();
  const input: MappedHookInput = { name: hook, payload: parsed.value, headers: req.headers, query: req.query, url: `${deps.config.path}/${hook}${qs ? `?${qs}` : ""}`, requestId: "dry-run" };
  const resolved = await deps.mappings.dryRun(input);
  if (!resolved.ok) {
    const e = resolved.error;
    return err(dryRunFailures.hookWouldFail({ status: e.status, code: e.code, error: e.message }, { lines: detailLines(e.details), code: e.code }));
  }
  const outcome = resolved.value;
  if (outcome.kind === "no_match") {
    return err(dryRunFailures.noMappingMatches({ hook }, { lines: formatMappingList(deps.mappings.describe()).split("\n"), code: "not_found" }));
  }
  const described = deps.mappings.describe().find((m) => m.id === outcome.mappingId);
  const mapping = { id: outcome.mappingId, key: described?.key ?? outcome.mappingId };
  // The path's signature is not checked here (the dry run has no signed request); the report says so.
  const verified = deps.mappings.verifications().find((v) => v.path === hook);
  const signature = verified ? { signature: { scheme: verified.config.scheme, key: verified.key } } : {};
  if (outcome.kind === "skip") return ok({ hook, mapping, ...signature, outcome: "skip", ...(outcome.reason ? { skipReason: outcome.reason } : {}), dispatched: false });
  if (outcome.kind === "pong") return ok({ hook, mapping, ...signature, outcome: "pong", dispatched: false });
  if (outcome.kind === "challenge") return ok({ hook, mapping, ...signature, outcome: "handshake", response: { status: 200, body: outcome.body }, dispatched: false });
  if (outcome.kind === "batch") {
    const items: DryRunItem[] = [];
    for (const item of outcome.items) {
      if (!item.raw) {
        items.push({ index: item.index, skipped: true });
        continue;
      }
      const v = validateAction(item.raw, { runtime: deps.runtime, config: deps.config }, `item ${item.index} of mapping ${outcome.mappingId}`);
      if (!v.ok) {
        const e = v.error;
        return err(dryRunFailures.actionInvalid({ mappingId: `${outcome.mappingId} (item ${item.index})`, status: e.status, code: e.code, error: e.message }, { lines: detailLines(e.details), code: e.code }));
      }
      items.push({ index: item.index, action: v.value, allowUnsafeExternalContent: item.allowUnsafeExternalContent });
    }
    const runs = items.flatMap((i) => (i.action?.kind === "agent" ? [{ index: i.index, runId: `<run id ${i.index}>`, sessionKey: i.action.sessionKey }] : []));
    const events = items.filter((i) => i.action?.kind === "wake").length;
    const response = outcome.response?.({ runs, events }) ?? { status: runs.length > 0 ? 202 : 200, body: { ok: true, runs, events, mapping: outcome.mappingId } };
    return ok({ hook, mapping, ...signature, outcome: "batch", forEach: outcome.path, items, response, dispatched: false });
  }

  const validated = validateAction(outcome.raw, { runtime: deps.runtime, config: deps.config }, `action of mapping ${outcome.mappingId}`);
  if (!validated.ok) {
    const e = validated.error;
    return err(dryRunFailures.actionInvalid({ mappingId: outcome.mappingId, status: e.status, code: e.code, error: e.message }, { lines: detailLines(e.details), code: e.code }));
  }
  return ok({
    hook,
    mapping,
    ...signature,
    outcome: "action",
    action: validated.value,
    allowUnsafeExternalContent: outcome.allowUnsafeExternalContent,
    ...(validated.value.kind === "agent" ? { sessionKeyGenerated: outcome.raw.sessionKey === undefined } : {}),
    ...(outcome.response ? { response: outcome.response(validated.value.kind === "agent" ? { runId: "<run id>", sessionKey: validated.value.sessionKey } : {}) } : {}),
    dispatched: false,
  });
}
