/**
 * How `gateway webhooks test` words what went wrong: its flags, and the framing it
 * adds to a dry-run failure (src/mappings/dry-run-failures.ts). One catalogue of
 * message templates (src/host-contract/error-catalogue.ts); the command prints the
 * message on stderr and exits 1.
 */
import { createErrorCatalogue } from "../host-contract/error-catalogue";

export const DRY_RUN_COMMAND_CATALOGUE = {
  headerMalformed: { message: '--header "{header}" must look like "Name: value"' },
  queryMalformed: { message: '--query "{query}" must look like "name=value"' },
  payloadUnreadable: { message: "cannot read --payload {file}: {reason}" },
  payloadInvalid: { message: "--payload {file}: {failure}" },
  directEndpoint: { message: "{failure}; webhooks test dry-runs {hooksPath}/<name> mappings" },
  transformFailed: { message: "{failure} (the cause is in the log above)" },
  payloadOrDelivery: { message: "give exactly one of --payload <file> and --delivery <id>" },
  deliveryWithoutBody: {
    message: "delivery {id} was recorded without its body (hooks.ledger.storeBodies was false, or the body was refused), so there is nothing to dry-run",
  },
} as const;

/** A failure the command reports on stderr with a non-zero exit. */
export class DryRunCommandError extends Error {
  override readonly name = "DryRunCommandError";
}

/** `dryRunCommandErrors.<name>(args)`. */
export const dryRunCommandErrors = createErrorCatalogue(DRY_RUN_COMMAND_CATALOGUE, ({ message }) => new DryRunCommandError(message));
