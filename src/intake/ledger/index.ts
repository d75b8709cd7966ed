/** The delivery ledger's read routes (SPEC §11); recording and replay are part of the core (src/intake/). */
export { DELIVERY_ID_HEADER, NO_LEDGER, serveLedgerRoute, type LedgerAccess, type NoLedger, type Replayer, type ReplayOutcome } from "./ledger-routes";
