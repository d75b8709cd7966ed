/**
 * Why a dry run has no report: one catalogue of message templates (the factory of
 * src/host-contract/error-catalogue.ts). Each failure carries its reason, the code
 * the hook would answer with (when there is one) and further lines (each problem of
 * a refused payload or action, or the configured mappings when none matches).
 */
import { createErrorCatalogue } from "../host-contract/error-catalogue";

export type DryRunFailureReason = "direct_endpoint" | "invalid_body" | "hook_error" | "no_match" | "invalid_action";

export interface DryRunFailure {
  reason: DryRunFailureReason;
  /** One sentence naming what is wrong (a front end adds its own framing, e.g. the payload's file name). */
  message: string;
  lines: string[];
  /** The error code the hook would answer with, when there is one. */
  code?: string;
}

export const DRY_RUN_FAILURE_CATALOGUE = {
  directEndpoint: { reason: "direct_endpoint", message: '"{hook}" is a direct endpoint, not a mapped hook' },
  invalidBody: { reason: "invalid_body", message: "{error} ({code})" },
  hookWouldFail: { reason: "hook_error", message: "The hook would fail with {status} {code}: {error}" },
  noMappingMatches: { reason: "no_match", message: 'No mapping matches "{hook}" (the hook would answer 404 not_found).' },
  actionInvalid: {
    reason: "invalid_action",
    message: "Mapping {mappingId} matched, but its action is invalid (the hook would answer {status} {code}): {error}",
  },
} as const satisfies Record<string, { reason: DryRunFailureReason; message: string }>;

/** `dryRunFailures.<name>(args, { lines, code })`. */
export const dryRunFailures = createErrorCatalogue(
  DRY_RUN_FAILURE_CATALOGUE,
  ({ entry, message }, options: { lines?: string[]; code?: string } | undefined): DryRunFailure => {
    const failure: DryRunFailure = { reason: entry.reason, message, lines: options?.lines ?? [] };
    if (options?.code !== undefined) failure.code = options.code;
    return failure;
  },
);
