/** The delivery ledger's read routes (SPEC §11); recording and replay are part of the core (src/intake/). */
export { DELIVERY_ID_HEADER, serveLedgerRoute, type LedgerAccess, type Replayer, type ReplayOutcome } from "./ledger-routes";
