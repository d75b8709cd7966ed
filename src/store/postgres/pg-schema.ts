/**
 * The Postgres store's schema (SPEC §16), in its own Postgres schema `inbound_webhooks`
 * so it shares a database with nothing else's tables, as an ordered list of migrations
 * of its own (the SQLite store's are src/store/migrations.ts). The applied version is
 * the one row of `inbound_webhooks.schema_version`; pg-migrate.ts applies the missing
 * ones in one transaction under an advisory lock (receivers and consumers started at
 * once migrate one after the other) and refuses a database written by a newer version.
 *
 * Text a sender controls goes into `text` columns only as JSON (`action`, `source`,
 * `headers`, `response` …: JSON escapes every control character) or through
 * `pgText()` (pg-text.ts), because Postgres text cannot hold U+0000; bodies are `bytea`,
 * kept byte for byte. Times of records are ms since the epoch from the writer's clock, as
 * in the SQLite store; leases use the database's clock (`now()`), the one clock every
 * receiver and consumer share.
 *
 * Never edit a released migration: append a new one.
 */

/** The Postgres schema holding the store's tables. */
export const PG_SCHEMA = "inbound_webhooks";

/** The channel of LISTEN/NOTIFY: the payload names what arrived ("runs", "wakes"). */
export const PG_CHANNEL = "inbound_webhooks";

export const PG_MIGRATIONS: readonly string[] = [
  // 1: runs, idempotency keys, the delivery ledger and the wakes a receiver stored.
  `
  CREATE TABLE ${PG_SCHEMA}.runs (
    id              text PRIMARY KEY,
    seq             bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    session_key     text NOT NULL,
    status          text NOT NULL CHECK (status IN ('queued','running','succeeded','failed','timed_out','interrupted')),
    action          text NOT NULL,
    source          text NOT NULL,
    created_at      text NOT NULL,
    started_at      text,
    finished_at     text,
    finished_ms     bigint,
    summary         text,
    error           text,
    idempotency_key text,
    summary_pending boolean NOT NULL DEFAULT false,
    attempts        integer NOT NULL DEFAULT 0,
    lease_owner     text,
    lease_until     timestamptz
  );
  -- The queue's scan: the queued head of each session, in arrival order.
  CREATE INDEX runs_queued ON ${PG_SCHEMA}.runs (session_key, seq) WHERE status = 'queued';
  CREATE INDEX runs_status_seq ON ${PG_SCHEMA}.runs (status, seq);
  -- One run at a time per session key, whatever the consumers do: the database refuses a second.
  CREATE UNIQUE INDEX runs_one_running_per_session ON ${PG_SCHEMA}.runs (session_key) WHERE status = 'running';
  CREATE INDEX runs_lease ON ${PG_SCHEMA}.runs (lease_until) WHERE status = 'running';
  CREATE INDEX runs_finished ON ${PG_SCHEMA}.runs (finished_ms, seq) WHERE finished_ms IS NOT NULL;
  CREATE INDEX runs_idempotency_key ON ${PG_SCHEMA}.runs (idempotency_key) WHERE idempotency_key IS NOT NULL;

  CREATE TABLE ${PG_SCHEMA}.idempotency_keys (
    scope      text NOT NULL,
    key        text NOT NULL,
    body_hash  text NOT NULL,
    status     integer NOT NULL,
    body       text,
    headers    text,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (scope, key)
  );
  CREATE INDEX idempotency_keys_expires_at ON ${PG_SCHEMA}.idempotency_keys (expires_at);

  CREATE TABLE ${PG_SCHEMA}.deliveries (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              text NOT NULL UNIQUE,
    received_at     bigint NOT NULL,
    method          text NOT NULL,
    url             text NOT NULL,
    hook            text,
    mapping_id      text,
    client          text NOT NULL,
    status          integer NOT NULL,
    code            text,
    latency_ms      integer NOT NULL,
    idempotency_key text,
    run_id          text,
    run_ids         text NOT NULL DEFAULT '[]',
    replay_of       text,
    headers         text,
    body            bytea,
    body_stored     boolean NOT NULL DEFAULT false,
    response        text,
    response_headers text,
    event           text,
    repeat          boolean NOT NULL DEFAULT false,
    waited          boolean NOT NULL DEFAULT false,
    refused         boolean NOT NULL DEFAULT false,
    times           integer NOT NULL DEFAULT 1,
    last_at         bigint,
    -- Filled after the write by the indexer (pg-ledger.ts), never on the accept path.
    search          tsvector,
    indexed         boolean NOT NULL DEFAULT false
  );
  CREATE INDEX deliveries_received_at ON ${PG_SCHEMA}.deliveries (received_at);
  CREATE INDEX deliveries_hook_seq ON ${PG_SCHEMA}.deliveries (hook, seq);
  CREATE INDEX deliveries_refused_seq ON ${PG_SCHEMA}.deliveries (refused, seq);
  CREATE INDEX deliveries_run_id ON ${PG_SCHEMA}.deliveries (run_id) WHERE run_id IS NOT NULL;
  CREATE INDEX deliveries_unindexed ON ${PG_SCHEMA}.deliveries (seq) WHERE NOT indexed;
  CREATE INDEX deliveries_search ON ${PG_SCHEMA}.deliveries USING gin (search);

  CREATE TABLE ${PG_SCHEMA}.wakes (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          text NOT NULL UNIQUE,
    event       text NOT NULL,
    created_at  bigint NOT NULL,
    lease_owner text,
    lease_until timestamptz
  );
  `,
  // 2: the run's name in a column of its own (its session key has one), so a listing (pg-runs.ts list, LISTING_COLUMNS) reads
  // ids, names, times and the summary without reading or parsing any action (as the SQLite store's migration 11). Filled for the
  // runs already stored from their action, row by row: one whose action is not valid JSON or has no text name keeps NULL (a
  // damaged run, which a listing reads in full and leaves out, as before).
  `
  ALTER TABLE ${PG_SCHEMA}.runs ADD COLUMN name text;
  DO $$
  DECLARE r record;
  BEGIN
    FOR r IN SELECT id, action FROM ${PG_SCHEMA}.runs LOOP
      BEGIN
        UPDATE ${PG_SCHEMA}.runs SET name = CASE WHEN json_typeof(r.action::json -> 'name') = 'string' THEN r.action::json ->> 'name' END WHERE id = r.id;
      EXCEPTION WHEN others THEN NULL;
      END;
    END LOOP;
  END $$;
  `,
];
