/**
 * Rate limit of the deprecation warning for `?token=`: at most one warning per
 * client per interval (default one minute), so a chatty sender cannot flood the log.
 */

export interface QueryTokenWarnerOptions {
  /** Default 60000. */
  intervalMs?: number;
  clock?: () => number;
  /** Clients remembered at most. Default 10000. */
  maxClients?: number;
}

/** Returns `shouldWarn(client)`: true at most once per interval per client. */
export function createQueryTokenWarner(options: QueryTokenWarnerOptions = {}): (client: string) => boolean {
  const intervalMs = options.intervalMs ?? 60_000;
  const clock = options.clock ?? Date.now;
  const maxClients = options.maxClients ?? 10_000;
  const lastWarned = new Map<string, number>();

  return (client) => {
    const now = clock();
    const last = lastWarned.get(client);
    if (last !== undefined && now - last < intervalMs) return false;
    if (last === undefined && lastWarned.size >= maxClients) {
      for (const [c, t] of lastWarned) if (now - t >= intervalMs) lastWarned.delete(c);
      while (lastWarned.size >= maxClients) lastWarned.delete(lastWarned.keys().next().value as string);
    }
    lastWarned.delete(client);
    lastWarned.set(client, now);
    return true;
  };
}
