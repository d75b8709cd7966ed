/**
 * Idempotency keys whose request is in flight in this process, per database file: one
 * map for every connection of the process to that file, not one per connection.
 *
 * A host may run two instances of the plugin on one database in one process — OpenClaw
 * reloads a plugin in place: the new instance opens the database and serves while the
 * old one still finishes its requests. A `pending` record is left by a crash only when no
 * open connection of this process may still complete it, so the guard
 * (src/intake/idempotency/idempotency-guard.ts) and the crash recovery at open
 * (idempotency-store.ts) ask this registry, not an instance's own memory: a keyed retry
 * that reaches the new instance while the old one handles the key waits for it instead
 * of taking its record for a crash's leftover and running again.
 *
 * An entry counts while its holder (the connection whose request it is) is open: a
 * closed connection writes nothing more, so what it left pending is then resolved like a
 * crash's leftover (from the run it stored, or dropped). The registry lives on
 * `globalThis` because a host that reloads a plugin may load its modules afresh.
 */

/** What the registry needs of an entry: the connection whose request it is. */
export interface KeyInFlight {
  readonly holder: { readonly isOpen: boolean };
}

const REGISTRY = Symbol.for("inbound-webhooks.store.keys-in-flight");

/** The process's map of keys in flight (`runIdempotencyKey(scope, key)` → entry) for the database file `file`. */
export function keysInFlight<E extends KeyInFlight>(file: string): Map<string, E> {
  const holder = globalThis as { [REGISTRY]?: Map<string, Map<string, KeyInFlight>> };
  const files = (holder[REGISTRY] ??= new Map());
  let keys = files.get(file);
  if (!keys) files.set(file, (keys = new Map()));
  return keys as Map<string, E>;
}

/** True when a request of an open connection of this process holds `id` (a `runIdempotencyKey`) on `file`. */
export function isKeyInFlight(file: string, id: string): boolean {
  return keysInFlight(file).get(id)?.holder.isOpen === true;
}
