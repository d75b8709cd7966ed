/**
 * Replay and bulk replay as the ledger routes, the CLI and the inspector reach them
 * (LedgerAccess), built once for either store: the rules are replay.ts and bulk-replay.ts;
 * a store gives only its reads and the write of the replay's row.
 */
import type { ResolvedHooksConfig } from "../config/types";
import type { PluginLogs } from "../logging/logger";
import type { SignatureGate } from "../intake/auth/signature-gate";
import type { Accept } from "../intake/accept";
import type { LedgerAccess } from "../intake/ledger";
import { createReplayer, type ReplayLedger } from "../intake/replay";
import { createBulkReplayer, type BulkReplayLedger } from "../intake/bulk-replay";

/** Replay and bulk replay through the one accept path; `ledger`: the SQLite ledger, or Postgres's reads and group commit (pg-runtime.ts). */
export function replayAccessOf(
  opts: { config: ResolvedHooksConfig; logs: PluginLogs; signatures: SignatureGate },
  ledger: ReplayLedger & BulkReplayLedger,
  accept: Accept,
): Pick<LedgerAccess, "replay" | "bulkReplay"> {
  const log = opts.logs.forModule("ledger");
  const replay = createReplayer({
    config: opts.config,
    ledger,
    accept,
    signatures: opts.signatures,
    onUnexpected: (e) => log.error("replay failed with an unexpected error", { error: e instanceof Error ? e.message : String(e) }),
  });
  return {
    replay,
    bulkReplay: createBulkReplayer({
      ledger,
      replay,
      onUnreadable: (id, e) => log.error("a delivery of a bulk replay could not be read", { deliveryId: id, error: (e as Error)?.message }),
    }),
  };
}
