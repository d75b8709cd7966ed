/**
 * Waiting until the event loop has polled for I/O once (SPEC §14: no request may hold the
 * loop for more than 50 ms). Work that runs in an I/O callback — a request body's `end` —
 * and awaits one `setImmediate` goes on in the same turn's check phase, before any other
 * socket is read; a `setImmediate` queued from that phase runs in the next turn, after its
 * poll. So two hops let every request and probe that arrived meanwhile be read first.
 *
 * @example
 *   const payload = parse(raw); // one turn
 *   await afterIoPoll();
 *   dispatch(payload); // the next one
 */
export function afterIoPoll(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
