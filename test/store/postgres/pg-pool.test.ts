/**
 * The Postgres store's pool (src/store/postgres/pg-pool.ts) when a connection is lost
 * while a transaction holds it — what a Postgres stopped under load does to the ledger
 * indexer's transaction (pg-ledger.ts `index`): the transaction fails as a storage
 * fault, the process goes on, the pool connects again.
 */
import { describePostgres } from "../../helpers/postgres";
import { pgFixture } from "./pg-fixture";
import { openPgPool } from "../../../src/store/postgres/pg-pool";
import { storageFaultCode } from "../../../src/core/storage-fault";

describePostgres("Postgres pool: a connection lost inside a transaction", () => {
  const fx = pgFixture();

  it("a connection lost while a transaction holds it is no uncaught exception: the transaction fails as a storage fault and the pool recovers", async () => {
    const url = await fx.cluster().createDatabase();
    const pool = openPgPool({ url, logger: fx.logs.logger, connectTimeoutMs: 1000 });
    try {
      const failure = await pool
        .transaction(async (client) => {
          const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
          const ended = new Promise((resolve) => client.once("end", resolve));
          // The server ends the connection between two statements of the transaction (no query in flight):
          // `pg` emits `error` on the checked-out client, which crashed the gateway when nobody listened.
          await fx.cluster().psql(`SELECT pg_terminate_backend(${rows[0]!.pid})`);
          await ended;
          await client.query("SELECT 1");
        })
        .catch((e: unknown) => e);
      expect(storageFaultCode(failure)).toMatch(/^PG_/);
      expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      expect(await pool.transaction(async (client) => (await client.query<{ two: number }>("SELECT 2 AS two")).rows[0]!.two)).toBe(2);
    } finally {
      await pool.end();
    }
  });
});
