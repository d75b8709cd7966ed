/** The delivery ledger's part of the hooks pipeline (SPEC §11): recording, the read routes, replay. */
export { createDeliveryRecorder, type LedgerFacts } from "./delivery-recorder";
export { DELIVERY_ID_HEADER, methodNotAllowed, serveLedgerRoute, type LedgerAccess } from "./ledger-routes";
export { createReplayer, type Replayer, type ReplayOutcome } from "./replay";
