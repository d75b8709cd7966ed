/**
 * Applies the Postgres store's migrations (pg-schema.ts) in one transaction, under a
 * transaction-level advisory lock: several receivers and a consumer started at the same
 * time migrate one after the other, and the later ones find the schema current. A crash
 * in the middle leaves the database at the version before (the next start migrates
 * again). A database written by a newer version of the plugin is refused.
 *
 * @example const version = await migratePostgres(pool); // 1
 */
import type { PgPool } from "./pg-pool";
import { PG_MIGRATIONS, PG_SCHEMA } from "./pg-schema";

/** The advisory lock key of migrations (any fixed 64-bit number; "iwmigrat" in ASCII). */
const MIGRATION_LOCK = "7599076873093276788";

/** Applies the missing migrations; returns the schema version after. */
export async function migratePostgres(pool: PgPool, migrations: readonly string[] = PG_MIGRATIONS): Promise<number> {
  return pool.transaction(async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${PG_SCHEMA}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${PG_SCHEMA}.schema_version (version integer NOT NULL)`);
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${PG_SCHEMA}.schema_version`);
    const current = rows[0]?.version ?? 0;
    if (current > migrations.length) {
      throw new Error(
        `the Postgres store (${pool.where}, schema ${PG_SCHEMA}) has schema version ${current} but this version of the plugin knows only ${migrations.length}; upgrade the plugin on every receiver and consumer`,
      );
    }
    for (let v = current; v < migrations.length; v++) await client.query(migrations[v]!);
    if (rows.length === 0) await client.query(`INSERT INTO ${PG_SCHEMA}.schema_version (version) VALUES ($1)`, [migrations.length]);
    else if (current < migrations.length) await client.query(`UPDATE ${PG_SCHEMA}.schema_version SET version = $1`, [migrations.length]);
    return migrations.length;
  });
}
