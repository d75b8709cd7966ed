/**
 * Why `gateway webhooks test` could not show an action: one catalogue of message
 * templates (src/host-contract/error-catalogue.ts); the command prints the message
 * on stderr and exits 1. `details` arguments are pre-rendered `\n  - field: message` lines.
 */
import { createErrorCatalogue } from "../host-contract/error-catalogue";

export const DRY_RUN_FAILURE_CATALOGUE = {
  headerMalformed: { message: '--header "{header}" must look like "Name: value"' },
  queryMalformed: { message: '--query "{query}" must look like "name=value"' },
  payloadUnreadable: { message: "cannot read --payload {file}: {reason}" },
  payloadInvalid: { message: "--payload {file}: {error} ({code})" },
  directEndpoint: { message: '"{hook}" is a direct endpoint, not a mapped hook; webhooks test dry-runs {hooksPath}/<name> mappings' },
  hookWouldFail: { message: "The hook would fail with {status} {code}: {error}{details}" },
  transformWouldFail: { message: "The hook would fail with {status} {code}: {error} (the cause is in the log above){details}" },
  noMappingMatches: { message: 'No mapping matches "{hook}" (the hook would answer 404 not_found).\n{mappings}' },
  actionInvalid: { message: "Mapping {mappingId} matched, but its action is invalid (the hook would answer {status} {code}): {error}{details}" },
} as const;

/** A failure the command reports on stderr with a non-zero exit. */
export class DryRunFailure extends Error {
  override readonly name = "DryRunFailure";
}

/** One factory per catalogue entry: `dryRunFailures.<name>(args)`. */
export const dryRunFailures = createErrorCatalogue(DRY_RUN_FAILURE_CATALOGUE, ({ message }) => new DryRunFailure(message));
