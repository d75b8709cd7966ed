import { describePostgres } from "../../helpers/postgres";
import { freePort } from "../../helpers/free-port";
import { openPostgresStore, PostgresStartError } from "../../../src/store/postgres/pg-store";
import { migratePostgres } from "../../../src/store/postgres/pg-migrate";
import { PG_MIGRATIONS } from "../../../src/store/postgres/pg-schema";
import { pgFixture } from "./pg-fixture";

describePostgres("Postgres store: opening", () => {
  const fx = pgFixture();
  const open = (url: string) => openPostgresStore({ url, logger: fx.logs.logger, storeBodies: true, connectTimeoutMs: 2000 });

  it("migrates a fresh database once, and receivers starting at the same time all find it current", async () => {
    const url = await fx.cluster().createDatabase();
    const stores = await Promise.all([open(url), open(url), open(url)]);
    try {
      expect(stores.map((s) => s.schemaVersion)).toEqual([2, 2, 2]);
      expect(await fx.cluster().psql("SELECT version FROM inbound_webhooks.schema_version", url.split("/").pop())).toBe("2\n");
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("refuses a database written by a newer version of the plugin", async () => {
    const store = await fx.open();
    await expect(migratePostgres(store.pool, PG_MIGRATIONS.slice(0, 0))).rejects.toThrow(
      /has schema version 2 but this version of the plugin knows only 0; upgrade the plugin on every receiver and consumer/,
    );
  });

  it("names an unreachable server by host and port, never the password", async () => {
    const port = await freePort();
    const e = await open(`postgres://app:s3cret@127.0.0.1:${port}/db`).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PostgresStartError);
    expect((e as Error).message).toBe(
      `the Postgres store cannot start (hooks.store): nothing answers at 127.0.0.1:${port}/db (ECONNREFUSED): start Postgres there, or correct the host and port of hooks.store.url`,
    );
    expect((e as Error).message).not.toContain("s3cret");
  });

  it("names a database that does not exist and how to create it", async () => {
    const url = fx.cluster().url("nothere");
    await expect(open(url)).rejects.toThrow(
      `the database nothere does not exist at 127.0.0.1:${fx.cluster().port}/nothere (3D000): create it (createdb nothere)`,
    );
  });

  it("names a user the server does not know", async () => {
    await expect(open(`postgres://nobody@127.0.0.1:${fx.cluster().port}/postgres`)).rejects.toThrow(/refused the user nobody \(28000: /);
  });

  it("refuses a url that is not a Postgres url", async () => {
    await expect(open("mysql://h/db")).rejects.toThrow("hooks.store.url must start with postgres:// or postgresql:// (it starts with mysql://)");
    await expect(open("not a url")).rejects.toThrow("hooks.store.url is not a url (postgres://user:password@host:port/database)");
  });

  it("names a user that may not create the store's schema, and what to grant", async () => {
    const url = await fx.cluster().createDatabase();
    const db = url.split("/").pop()!;
    await fx.cluster().psql(`CREATE ROLE weak LOGIN; REVOKE CREATE ON DATABASE ${db} FROM PUBLIC;`, db);
    await expect(open(`postgres://weak@127.0.0.1:${fx.cluster().port}/${db}`)).rejects.toThrow(
      `the user weak may not create the schema inbound_webhooks in the database ${db} at 127.0.0.1:${fx.cluster().port}/${db}: GRANT CREATE ON DATABASE ${db} TO weak`,
    );
  });
});
