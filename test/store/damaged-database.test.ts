/**
 * Damaged database state at open (SPEC §7 "Damaged state at start"): refused
 * before anything is written, with one line naming the file and what to do.
 * The regression: a damaged `-wal` made SQLite drop 5 of 6 committed runs
 * without a word.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSqlite } from "../../src/store/sqlite-driver";
import { DAMAGE_INDEX_SEGMENTS, writableShadowTables } from "../helpers/writable-shadow-tables";
import { createLedgerStore } from "../../src/store/ledger-store";
import { migrate, MIGRATIONS } from "../../src/store/migrations";
import { openPluginDatabase, DEFAULT_DATABASE_FILE } from "../../src/store/database";
import { createSqliteRunStore } from "../../src/store/run-store";
import { checkWal } from "../../src/store/wal-check";
import { recordingLogger, runRecord, tempDir } from "../helpers/temp-dir";

describe("openPluginDatabase: damaged state", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let file: string;
  beforeEach(() => {
    tmp = tempDir();
    log = recordingLogger("store");
    file = path.join(tmp.dir, DEFAULT_DATABASE_FILE);
  });
  afterEach(() => {
    log.close();
    tmp.remove();
  });

  /**
   * Six runs committed one by one and the files copied while the connection is
   * open — the state a kill -9 leaves: the runs live only in the -wal. Returns the
   * -wal length after each commit.
   */
  function crashedWithSixRuns(): number[] {
    return crashed({ checkpointAfter: 0, withShm: false }).lengths;
  }

  /**
   * The same crash with control over checkpoints: none from a worker (they would race
   * the copy), one in the committing call after run `checkpointAfter` (0: none), with a
   * reader on the snapshot after run `readerAfter` (default: the checkpoint's; it keeps
   * SQLite from starting the log over, and a reader older than the checkpoint holds the
   * copy back), and the -shm copied too when `withShm` (a process crash leaves it).
   */
  function crashed(options: { checkpointAfter: number; readerAfter?: number; withShm: boolean }): { lengths: number[] } {
    const live = path.join(tmp.dir, "live");
    const database = openPluginDatabase({ dir: live, logger: log.logger, backgroundCheckpoints: false });
    database.db.pragma("wal_autocheckpoint = 0");
    const store = createSqliteRunStore(database);
    const reader = openSqlite(database.file);
    const readerAfter = options.readerAfter ?? options.checkpointAfter;
    const lengths: number[] = [];
    for (let i = 1; i <= 6; i++) {
      store.insert(runRecord({ id: `run-${i}`, seq: store.nextSeq() }));
      lengths.push(fs.statSync(`${database.file}-wal`).size);
      if (i === readerAfter) {
        reader.exec("BEGIN");
        reader.prepare("SELECT COUNT(*) FROM runs").get();
      }
      if (i === options.checkpointAfter) database.db.pragma("wal_checkpoint(PASSIVE)");
    }
    fs.copyFileSync(database.file, file);
    fs.copyFileSync(`${database.file}-wal`, `${file}-wal`);
    if (options.withShm) fs.copyFileSync(`${database.file}-shm`, `${file}-shm`);
    if (readerAfter > 0) reader.exec("COMMIT");
    reader.close();
    database.close();
    return { lengths };
  }

  /** The crashed -shm, edited by `edit` with a u32 writer in the machine's byte order. */
  function editShm(edit: (shm: Buffer, u32: (at: number) => number, setU32: (at: number, value: number) => void) => void): void {
    const shm = fs.readFileSync(`${file}-shm`);
    const le = os.endianness() === "LE";
    edit(
      shm,
      (at) => (le ? shm.readUInt32LE(at) : shm.readUInt32BE(at)),
      (at, value) => void (le ? shm.writeUInt32LE(value, at) : shm.writeUInt32BE(value, at)),
    );
    fs.writeFileSync(`${file}-shm`, shm);
  }

  /** The runs of the crashed files opened with the -wal cut to `bytes`, in a directory of their own; "damaged" when the open refuses them. */
  function runsWithWalCutTo(wal: Buffer, bytes: number): unknown[] | "damaged" {
    const dir = path.join(tmp.dir, `cut-${bytes}`);
    fs.mkdirSync(dir);
    fs.copyFileSync(file, path.join(dir, DEFAULT_DATABASE_FILE));
    fs.writeFileSync(path.join(dir, `${DEFAULT_DATABASE_FILE}-wal`), wal.subarray(0, bytes));
    let database: ReturnType<typeof openPluginDatabase>;
    try {
      database = openPluginDatabase({ dir, logger: log.logger, backgroundCheckpoints: false });
    } catch (e) {
      if (/SQLITE_CORRUPT|is damaged/.test((e as Error).message)) return "damaged";
      throw e;
    }
    try {
      return runIds()(database);
    } finally {
      database.close();
    }
  }

  const salvage = (copiedFrames: number) =>
    `salvage what is readable: the database file holds part of the log (a checkpoint copied pages of frames up to ${copiedFrames}), so neither the file alone nor a cut log is consistent. ` +
    `Move ${file}-wal and ${file}-shm aside first (opening the database with them would rewrite the file), then: sqlite3 "${file}" ".recover" | sqlite3 repaired.sqlite, and put repaired.sqlite in its place`;

  /** Flips a byte at `offset` of the crashed -wal; returns its new bytes. */
  function damageWalAt(offset: number): Buffer {
    const wal = fs.readFileSync(`${file}-wal`);
    wal[offset] ^= 0xff;
    fs.writeFileSync(`${file}-wal`, wal);
    return wal;
  }

  const runIds = () => (database: ReturnType<typeof openPluginDatabase>) => database.db.prepare("SELECT id FROM runs ORDER BY seq").all();

  it("logs what PRAGMA quick_check found at every open", () => {
    openPluginDatabase({ dir: tmp.dir, logger: log.logger }).close();
    expect(log.lines.find((l) => l.message === "plugin database quick_check: ok")?.meta).toMatchObject({ database: file });
  });

  it("refuses a -wal whose committed transactions SQLite would silently drop, naming it, the loss and the command that keeps the intact part (regression: 5 of 6 runs vanished without a word)", () => {
    const lengths = crashedWithSixRuns();
    const wal = fs.readFileSync(`${file}-wal`);
    wal[lengths[0]! + 100] ^= 0xff; // a byte of the second run's first frame
    fs.writeFileSync(`${file}-wal`, wal);
    const found = checkWal(`${file}-wal`);
    expect(found).toMatchObject({ lostCommits: 5, validBytes: lengths[0] });

    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(
      `the plugin database's write-ahead log ${file}-wal is damaged: frame ${found.firstBadFrame} of ${found.frames} fails its checksum, ` +
        `so SQLite would silently drop the 5 transaction(s) committed after it (accepted runs among them). ` +
        `Keep a copy of ${file} and ${file}-wal; then restore both from a backup, or start without those transactions by cutting the log to its intact part: truncate -s ${lengths[0]} "${file}-wal"`,
    );
    // Nothing was written: the evidence is still there.
    expect(fs.readFileSync(`${file}-wal`)).toEqual(wal);

    fs.truncateSync(`${file}-wal`, lengths[0]!);
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    expect(database.db.prepare("SELECT id FROM runs").all()).toEqual([{ id: "run-1" }]);
    database.close();
  });

  it("a last commit frame that fails its checksum with no -shm to say it finished is a torn tail: the open goes on with a warning and keeps every earlier commit (regression: the torn frame counted as a lost transaction and the start was refused)", () => {
    const { lengths } = crashed({ checkpointAfter: 0, withShm: false });
    damageWalAt(lengths[5]! - 100); // inside the page of run 6's commit frame, the last frame
    const found = checkWal(`${file}-wal`);
    expect(found).toMatchObject({ lostCommits: 0, torn: { frames: found.frames - found.validFrames, commit: true }, validBytes: lengths[4] });

    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    expect(runIds()(database)).toEqual(allSix.slice(0, 5));
    database.close();
    expect(log.lines.find((l) => l.message.includes("never finished"))).toMatchObject({
      level: "warn",
      message:
        `the plugin database's write-ahead log ended in a write that never finished (frame ${found.firstBadFrame} of ${found.frames} fails its checksum: the commit frame of a transaction being committed when the process or the machine stopped, and no committed transaction follows it); ` +
        `SQLite drops that unfinished transaction (${found.torn!.frames} frame(s)) as after any crash and keeps every committed one (the log's first ${found.validFrames} frame(s))`,
      meta: { wal: `${file}-wal` },
    });
  });

  it("a last commit frame damaged after the -shm of its log recorded it as committed is refused: a finished transaction would be lost, not a torn write", () => {
    const { lengths } = crashed({ checkpointAfter: 0, withShm: true });
    const wal = damageWalAt(lengths[5]! - 100);
    const found = checkWal(`${file}-wal`);
    expect(found).toMatchObject({ lostCommits: 1, validBytes: lengths[4] });
    expect(found.torn).toBeUndefined();
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(
      `frame ${found.firstBadFrame} of ${found.frames} fails its checksum, so SQLite would silently drop the 1 transaction(s) committed after it`,
    );
    expect(fs.readFileSync(`${file}-wal`)).toEqual(wal);
  });

  /** Opens the crashed files (which must not be refused) and returns the run ids, the warning and the kept damaged log. */
  function openedAfterRebuild(damaged: Buffer): { runs: unknown[]; warning: string | undefined; keptCopy: Buffer | undefined } {
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    try {
      const warning = log.lines.find((l) => l.message.includes("write-ahead log was damaged"))?.message;
      const copy = fs.readdirSync(tmp.dir).find((n) => n.startsWith(`${DEFAULT_DATABASE_FILE}-wal.damaged-`));
      return { runs: runIds()(database), warning, keptCopy: copy ? fs.readFileSync(path.join(tmp.dir, copy)) : undefined };
    } finally {
      database.close();
      expect(damaged.length).toBeGreaterThan(0);
    }
  }

  const allSix = [1, 2, 3, 4, 5, 6].map((i) => ({ id: `run-${i}` }));

  it("a -wal damaged inside frames a checkpoint had copied, all of them, is rebuilt without them and every run is kept (regression: the cut the line advised laid older pages over the checkpointed file, hiding five intact runs)", () => {
    const { lengths } = crashed({ checkpointAfter: 6, withShm: true });
    const wal = damageWalAt(lengths[0]! + 100);
    const found = checkWal(`${file}-wal`);
    expect(found).toMatchObject({
      lostCommits: 5,
      copied: { frames: found.frames, backfilled: found.frames, end: found.frames, whole: true },
      commitsAfterCopied: 0,
    });
    // What the old advice did: cut the log at the damage. Its older pages hide the runs the file holds.
    expect(runsWithWalCutTo(wal, found.validBytes)).toEqual([{ id: "run-1" }]);

    const opened = openedAfterRebuild(wal);
    expect(opened.runs).toEqual(allSix);
    expect(opened.keptCopy).toEqual(wal);
    expect(opened.warning).toBe(
      `the plugin database's write-ahead log was damaged (frame ${found.firstBadFrame} of ${found.frames} failed its checksum) inside the ${found.frames} frame(s) a checkpoint had already copied into the database file; ` +
        `it was rebuilt from the 0 frame(s) after them, keeping every committed transaction (0 in the log), and the damaged log was kept as ${file}-wal.damaged-${opened.warning!.split(".damaged-")[1]}`,
    );
    expect(opened.warning!.split(".damaged-")[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
  });

  it("a copy held back by a reader (finished, but skipping pages with later frames): the rebuilt log keeps the frames after it and every run (review: `truncate -s 0` there left a damaged file)", () => {
    // The reader's snapshot is after run 1; the checkpoint after run 3 copies only pages with no frame after it.
    const { lengths } = crashed({ readerAfter: 1, checkpointAfter: 3, withShm: true });
    const wal = damageWalAt(lengths[0]! - 100); // run 1's commit frame
    const found = checkWal(`${file}-wal`);
    const frameOf = (bytes: number) => (bytes - 32) / (24 + 4096);
    expect(found.copied).toEqual({ frames: frameOf(lengths[0]!), backfilled: frameOf(lengths[0]!), end: found.frames, whole: false });
    // `truncate -s 0` here: the file alone is not the state at that frame (damaged, or without run 1).
    const fileAlone = runsWithWalCutTo(wal, 0);
    expect(fileAlone === "damaged" || !fileAlone.some((r) => (r as { id: string }).id === "run-1")).toBe(true);

    const opened = openedAfterRebuild(wal);
    expect(opened.runs).toEqual(allSix);
    expect(opened.warning).toContain(`inside the ${frameOf(lengths[0]!)} frame(s) a checkpoint had already copied`);
    expect(opened.warning).toContain(`it was rebuilt from the ${found.frames - frameOf(lengths[0]!)} frame(s) after them`);
  });

  it("a copy of the log followed by more commits: the rebuilt log keeps those commits", () => {
    const { lengths } = crashed({ checkpointAfter: 3, withShm: true });
    const wal = damageWalAt(lengths[0]! + 100);
    const found = checkWal(`${file}-wal`);
    expect(found.copied).toMatchObject({ frames: (lengths[2]! - 32) / (24 + 4096), whole: false });
    expect(openedAfterRebuild(wal).runs).toEqual(allSix);
  });

  it("a frame after the copied ones with its salts damaged: no rebuild (it would end the log there and drop the commits after it, while saying every one was kept)", () => {
    const { lengths } = crashed({ checkpointAfter: 3, withShm: true });
    damageWalAt(lengths[0]! + 100);
    const wal = damageWalAt(lengths[3]! + 8); // run 5's first frame: a byte of its first salt
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(salvage(checkWal(`${file}-wal`).copied!.frames));
    expect(fs.readFileSync(`${file}-wal`)).toEqual(wal);
  });

  it("the log's last commit frame damaged too: no rebuild", () => {
    const { lengths } = crashed({ checkpointAfter: 3, withShm: true });
    damageWalAt(lengths[0]! + 100);
    damageWalAt(lengths[5]! - 100); // run 6's commit frame, the last
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(/salvage what is readable/);
  });

  it("a frame after the copied ones damaged too: no rebuild, the salvage advice", () => {
    const { lengths } = crashed({ checkpointAfter: 3, withShm: true });
    damageWalAt(lengths[0]! + 100);
    const wal = damageWalAt(lengths[4]! + 100); // run 6's first frame, after the copy
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(salvage(checkWal(`${file}-wal`).copied!.frames));
    expect(fs.readFileSync(`${file}-wal`)).toEqual(wal);
    expect(fs.readdirSync(tmp.dir).filter((n) => n.includes(".damaged-"))).toEqual([]);
  });

  it("damage after the frames a checkpoint copied keeps the cut, which is consistent with the file", () => {
    const { lengths } = crashed({ checkpointAfter: 1, withShm: true });
    damageWalAt(lengths[2]! + 100); // the fourth run's first frame; runs 1–3 are intact
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(
      `cutting the log to its intact part: truncate -s ${lengths[2]} "${file}-wal"`,
    );
    fs.truncateSync(`${file}-wal`, lengths[2]!);
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    expect(runIds()(database)).toEqual([1, 2, 3].map((i) => ({ id: `run-${i}` })));
    database.close();
  });

  it("a checkpoint cut short by the crash with the damage in frames it had not finished: the salvage advice, moving the log aside first", () => {
    const { lengths } = crashed({ checkpointAfter: 6, withShm: true });
    const wal = damageWalAt(lengths[0]! + 100);
    let attempted = 0;
    editShm((_, u32, setU32) => {
      attempted = u32(128);
      setU32(96, 0); // nothing finished, everything attempted
    });
    expect(checkWal(`${file}-wal`).copied).toEqual({ frames: attempted, backfilled: 0, end: attempted, whole: false });
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(salvage(attempted));
    expect(fs.readFileSync(`${file}-wal`)).toEqual(wal);
  });

  it("a checkpoint cut short after finishing the damaged frames: the log is rebuilt from the finished point, keeping every run", () => {
    const { lengths } = crashed({ checkpointAfter: 6, withShm: true });
    const wal = damageWalAt(lengths[0]! + 100);
    editShm((_, u32, setU32) => setU32(96, u32(128) - 1)); // the last frame's copy not finished
    expect(openedAfterRebuild(wal).runs).toEqual(allSix);
  });

  it("a crash while SQLite started the log over (the -shm already of the next log, no frame yet) means all of it was copied: rebuilt empty, every run kept", () => {
    const { lengths } = crashed({ checkpointAfter: 6, withShm: true });
    const wal = damageWalAt(lengths[0]! + 100);
    editShm((shm, _u32, setU32) => {
      for (const copy of [0, 48]) {
        shm.writeUInt32BE((wal.readUInt32BE(16) + 1) >>> 0, copy + 32); // the next log's first salt
        shm.writeUInt32BE(0x5eed5eed, copy + 36);
        setU32(copy + 16, 0); // mxFrame
      }
      setU32(96, 0);
      setU32(128, 0);
    });
    const found = checkWal(`${file}-wal`);
    expect(found.copied).toEqual({ frames: found.frames, backfilled: found.frames, end: found.frames, whole: true });
    const opened = openedAfterRebuild(wal);
    expect(opened.runs).toEqual(allSix);
    expect(opened.warning).toContain("it was rebuilt from the 0 frame(s) after them");
  });

  it("a -shm of another log (other salts) tells nothing: the cut stays the advice", () => {
    const { lengths } = crashed({ checkpointAfter: 6, withShm: true });
    damageWalAt(lengths[0]! + 100);
    editShm((shm) => {
      shm[32] ^= 0xff; // first copy of the header's salt
      shm[48 + 32] ^= 0xff; // and the second, so the two copies still agree
    });
    expect(checkWal(`${file}-wal`).copied).toBeUndefined();
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(`truncate -s ${lengths[0]} "${file}-wal"`);
  });

  it("opens an undamaged crashed database with every committed run", () => {
    crashedWithSixRuns();
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    expect(database.db.prepare("SELECT COUNT(*) AS n FROM runs").get()).toEqual({ n: 6 });
    database.close();
  });

  it("refuses a database that PRAGMA quick_check finds damaged, with its first finding and what to do", () => {
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    const store = createSqliteRunStore(database);
    for (let i = 0; i < 200; i++) store.insert(runRecord({ id: `run-${i}`, seq: store.nextSeq() }));
    const root = (database.db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'runs_status_seq'").get() as { rootpage: number }).rootpage;
    const pageSize = database.db.pragmaValue("page_size") as number;
    database.close();
    const bytes = fs.readFileSync(file);
    bytes[(root - 1) * pageSize] = 0; // the index root page's type byte
    fs.writeFileSync(file, bytes);

    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(
      new RegExp(
        `^the plugin database ${file.replace(/[.]/g, "\\.")} is damaged \\(PRAGMA quick_check found \\d+ problem\\(s\\), the first: \\*\\*\\* in database main \\*\\*\\* Tree ${root} page ${root}: btreeInitPage\\(\\) returns error code 11.*\\)\\. ` +
          `Stop the gateway and keep a copy of it and its -wal; then repair it .+ or move it aside to start with an empty store\\.$`,
      ),
    );
  });

  it("regression: a damaged ledger search index (its blocks unreadable, found by PRAGMA quick_check) refused the whole start; now the index is dropped and built again from the rows, which are kept", () => {
    let database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    let ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 7, maxEntries: 1000 });
    for (let i = 0; i < 50; i++) {
      ledger.record({
        id: `d-${i}`,
        receivedAt: Date.now(),
        method: "POST",
        url: "/hooks/wake",
        hook: "wake",
        client: "::1",
        status: 200,
        latencyMs: 1,
        runIds: [],
        headers: {},
        body: Buffer.from(`{"word":"w${i} heron"}`),
      });
    }
    // Written and indexed (the index steps follow the write), so the index has blocks to damage.
    ledger.flush();
    expect(ledger.index()).toBe(50);
    ledger.close();
    database.close();
    // The index's blocks overwritten, by a connection allowed to write FTS5's own tables (the store's drivers are not).
    const raw = writableShadowTables(file);
    raw.exec(DAMAGE_INDEX_SEGMENTS);
    raw.close();
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    try {
      expect(
        log.lines.some(
          (l) =>
            l.level === "error" &&
            /search index in .* is damaged \(PRAGMA quick_check: fts5: .*"deliveries_fts"\); it was dropped and is built again from the stored rows$/.test(
              l.message,
            ),
        ),
      ).toBe(true);
      ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 7, maxEntries: 1000 });
      expect(ledger.count()).toBe(50);
      expect(ledger.list({ limit: 100, search: "heron" })).toHaveLength(50);
      expect(ledger.list({ limit: 100, search: "w7" })!.map((d) => d.id)).toEqual(["d-7"]);
      expect(database.db.pragma("quick_check")).toEqual([{ quick_check: "ok" }]);
      ledger.close();
    } finally {
      database.close();
    }
  });

  it("regression: a schema-4 database whose search index is damaged refused the whole start; now the index is built again from the rows with one error line, and the migrations go on", () => {
    const raw = openSqlite(file);
    migrate(raw, MIGRATIONS.slice(0, 4));
    const insert = raw.prepare<[string, Buffer]>(
      "INSERT INTO deliveries (id, received_at, method, url, hook, client, status, latency_ms, body, body_stored) VALUES (?, 1, 'POST', '/hooks/wake', 'wake', '::1', 202, 1, ?, 1)",
    );
    for (let i = 0; i < 50; i++) insert.run(`d-${i}`, Buffer.from(`{"word":"w${i} egret"}`));
    raw.close();
    const writable = writableShadowTables(file);
    writable.exec(DAMAGE_INDEX_SEGMENTS);
    writable.close();

    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    try {
      const repairs = log.lines.filter((l) => (l.level === "error" || l.level === "warn") && l.message.includes("search index"));
      expect(repairs).toHaveLength(1);
      expect(repairs[0]!.message).toMatch(
        /search index in .* is damaged \(PRAGMA quick_check: fts5: .*"deliveries_fts"\); it was dropped and is built again from the stored rows$/,
      );
      expect(database.db.pragmaValue("user_version")).toBe(MIGRATIONS.length);
      const ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 100_000, maxEntries: 1000 });
      expect(ledger.count()).toBe(50);
      expect(ledger.list({ limit: 100, search: "egret" })).toHaveLength(50);
      expect(ledger.list({ limit: 100, search: "w7" })!.map((d) => d.id)).toEqual(["d-7"]);
      expect(database.db.pragma("quick_check")).toEqual([{ quick_check: "ok" }]);
      ledger.close();
    } finally {
      database.close();
    }
  });

  it("regression: a database path that cannot be opened (a directory in its place) failed the start with a bare 'unable to open database file' naming no file; now the error names it and what to do", () => {
    fs.mkdirSync(file);
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(
      `cannot open the plugin database ${file}: unable to open database file (SQLITE_CANTOPEN). Make it a file the gateway's user can read and write (not a directory), or move it aside to start with an empty store.`,
    );
  });

  it("regression: a -wal that cannot be read (a directory in its place) failed the start with a bare EISDIR naming no file; now the error names it and what to do", () => {
    fs.mkdirSync(`${file}-wal`);
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(
      `cannot read the plugin database's write-ahead log ${file}-wal (EISDIR: illegal operation on a directory, read). ` +
        `Make it a file the gateway's user can read and write; do not delete a real one (it holds committed transactions, accepted runs among them), but a directory in its place holds none and can be moved aside.`,
    );
  });

  it("refuses a file that is not a database, naming it", () => {
    fs.writeFileSync(file, "this is not a database, just text that is long enough to look like a header ".repeat(20));
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(
      `cannot open the plugin database ${file}: file is not a database (SQLITE_NOTADB). Keep a copy of it, then restore it from a backup or move it (with its -wal and -shm files) aside to start with an empty store.`,
    );
  });
});

describe("checkWal", () => {
  it("does not count frames left over from before a checkpoint reset (other salts)", () => {
    const tmp = tempDir();
    try {
      const file = path.join(tmp.dir, "x.sqlite");
      const db = openSqlite(file);
      db.pragma("journal_mode = WAL");
      db.exec("CREATE TABLE t (v TEXT)");
      for (let i = 0; i < 20; i++) db.prepare("INSERT INTO t VALUES (?)").run("x".repeat(3000));
      db.pragma("wal_checkpoint(PASSIVE)");
      db.prepare("INSERT INTO t VALUES ('after the reset')").run();
      const copy = fs.readFileSync(`${file}-wal`);
      db.close();
      fs.writeFileSync(`${file}.copy-wal`, copy);
      const found = checkWal(`${file}.copy-wal`);
      expect(found.frames).toBeGreaterThan(found.validFrames);
      expect(found).toMatchObject({ lostCommits: 0 });
      expect(found.firstBadFrame).toBeUndefined();
    } finally {
      tmp.remove();
    }
  });
});
