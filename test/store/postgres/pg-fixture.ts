/** One throwaway Postgres per test file, a fresh database per test, and the store's records to write. */
import { randomUUID } from "node:crypto";
import { startPostgres, type PostgresCluster } from "../../helpers/postgres";
import { recordingLogger, agentAction, actionSource } from "../../helpers/temp-dir";
import { openPostgresStore, type PostgresStore } from "../../../src/store/postgres/pg-store";
import type { PgRunInsert } from "../../../src/store/postgres/pg-accept";
import type { AgentAction } from "../../../src/core/actions";

export interface PgFixture {
  cluster(): PostgresCluster;
  /** A store on a fresh database (or on `url`: a second receiver of the same database). */
  open(url?: string, options?: { poolMax?: number; connectTimeoutMs?: number; storeBodies?: boolean }): Promise<PostgresStore & { url: string }>;
  logs: ReturnType<typeof recordingLogger>;
}

/** Registers beforeAll/afterAll/afterEach; call inside describePostgres. */
export function pgFixture(): PgFixture {
  let cluster: PostgresCluster | undefined;
  const opened: PostgresStore[] = [];
  const logs = recordingLogger("pg");
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
  });
  afterAll(async () => {
    logs.close();
    await cluster?.cleanup();
  });
  return {
    cluster: () => cluster!,
    logs,
    async open(url, options = {}) {
      const u = url ?? (await cluster!.createDatabase());
      const store = await openPostgresStore({
        url: u,
        logger: logs.logger,
        storeBodies: options.storeBodies ?? true,
        poolMax: options.poolMax,
        connectTimeoutMs: options.connectTimeoutMs,
      });
      opened.push(store);
      return Object.assign(store, { url: u });
    },
  };
}

export function runInsert(overrides: Partial<AgentAction> = {}, extra: Partial<PgRunInsert> = {}): PgRunInsert {
  return { id: randomUUID(), action: agentAction(overrides), source: actionSource(), createdAt: new Date().toISOString(), ...extra };
}
