/**
 * Wake-ups of a consumer (SPEC §16 "woken by LISTEN/NOTIFY with a polling fallback"):
 * one connection of its own (outside the pool) LISTENs on the store's channel, and
 * every notification the group commit sends at its commit (pg-accept.ts: "runs",
 * "wakes") calls `onWake` at once. Notifications are not kept for a connection that is
 * gone, so the listener also calls `onWake` every `pollMs` whatever happens, and right
 * after it connected again (what arrived meanwhile is found by the poll). A lost
 * connection is opened again with a growing delay (up to `maxRetryMs`), logged once per
 * outage.
 *
 * @example
 *   const listener = startPgListener({ url, logger, pollMs: 1000, onWake: (what) => pump(what) });
 *   await listener.stop();
 */
import pg from "pg";
import type { ModuleLogger } from "../../core/logger";
import { PG_CHANNEL } from "./pg-schema";

export type PgWakeReason = "runs" | "wakes" | "poll";

export interface PgListenerOptions {
  url: string;
  logger: ModuleLogger;
  onWake: (reason: PgWakeReason) => void;
  /** The polling fallback's period. Default 1000. */
  pollMs?: number;
  /** Longest delay between two attempts to connect again. Default 5000. */
  maxRetryMs?: number;
}

export interface PgListener {
  /** True while the LISTEN connection is up. */
  readonly listening: boolean;
  stop(): Promise<void>;
}

export function startPgListener(options: PgListenerOptions): PgListener {
  const { logger, onWake } = options;
  let client: pg.Client | undefined;
  let listening = false;
  let stopped = false;
  let retryMs = 100;
  let retryTimer: NodeJS.Timeout | undefined;
  let outage = false;

  const wake = (reason: PgWakeReason): void => {
    try {
      onWake(reason);
    } catch (e) {
      logger.warn("a wake-up handler failed", { error: (e as Error).message });
    }
  };

  const lost = (e: Error | undefined): void => {
    if (!listening && client === undefined) return;
    listening = false;
    const old = client;
    client = undefined;
    old?.removeAllListeners();
    old?.on("error", () => undefined);
    void old?.end().catch(() => undefined);
    if (!outage) {
      outage = true;
      logger.warn("the Postgres LISTEN connection was lost; polling until it is back", { error: e?.message });
    }
    schedule();
  };

  const schedule = (): void => {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, options.maxRetryMs ?? 5000);
  };

  async function connect(): Promise<void> {
    if (stopped) return;
    const c = new pg.Client({ connectionString: options.url, application_name: "inbound-webhooks-listener", keepAlive: true });
    client = c;
    c.on("error", (e) => lost(e));
    c.on("end", () => lost(undefined));
    c.on("notification", (msg) => wake(msg.payload === "wakes" ? "wakes" : "runs"));
    try {
      await c.connect();
      await c.query(`LISTEN ${PG_CHANNEL}`);
    } catch (e) {
      lost(e as Error);
      return;
    }
    if (stopped) {
      await c.end().catch(() => undefined);
      return;
    }
    listening = true;
    retryMs = 100;
    if (outage) {
      outage = false;
      logger.info("the Postgres LISTEN connection is back");
    }
    // What was committed while nobody listened.
    wake("poll");
  }

  const poll = setInterval(() => wake("poll"), options.pollMs ?? 1000);
  poll.unref();
  void connect();

  return {
    get listening() {
      return listening;
    },
    async stop() {
      stopped = true;
      clearInterval(poll);
      if (retryTimer) clearTimeout(retryTimer);
      const c = client;
      client = undefined;
      listening = false;
      if (c) {
        c.removeAllListeners();
        c.on("error", () => undefined);
        await c.end().catch(() => undefined);
      }
    },
  };
}
