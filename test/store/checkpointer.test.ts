/**
 * WAL checkpoints from a worker thread (src/store/checkpointer.ts): the request path's
 * connection stops checkpointing once the worker is up, the worker copies the log into
 * the database file, closing leaves no log behind, and a worker that cannot start hands
 * checkpoints back to the connection.
 */
import fs from "node:fs";
import path from "node:path";
import { openPluginDatabase } from "../../src/store/database";
import { startCheckpointer } from "../../src/store/checkpointer";
import { openSqlite } from "../../src/store/sqlite-driver";
import { recordingLogger, tempDir } from "../helpers/temp-dir";
import { until } from "../helpers/until";

describe("background WAL checkpoints", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  beforeEach(() => {
    tmp = tempDir("iw-checkpoint-");
    log = recordingLogger("store");
  });
  afterEach(() => {
    log.close();
    tmp.remove();
  });

  it("the worker, not the committing connection, copies a 2 MiB row into the database file; closing leaves no -wal file", async () => {
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    const { db, file } = database;
    try {
      await until(() => db.pragmaValue("wal_autocheckpoint") === 0, "the connection to hand checkpoints to the worker");
      db.exec("CREATE TABLE big (b BLOB)");
      const before = fs.statSync(file).size;
      db.prepare("INSERT INTO big VALUES (?)").run(Buffer.alloc(2 * 1024 * 1024, 7));
      // The commit only appended to the log; the worker's checkpoint grows the database file.
      await until(() => fs.statSync(file).size >= before + 2 * 1024 * 1024, "the worker to checkpoint the 2 MiB row");
    } finally {
      database.close();
    }
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    expect(log.lines.filter((l) => l.level === "warn")).toEqual([]);
  });

  it("a worker that cannot open the database hands checkpoints back to the connection, with a warning", async () => {
    const db = openSqlite(path.join(tmp.dir, "own.sqlite"));
    db.pragma("journal_mode = WAL");
    db.pragma("wal_autocheckpoint = 0");
    const checkpoints = startCheckpointer({ db, file: path.join(tmp.dir, "missing", "nowhere.sqlite"), logger: log.logger });
    try {
      await until(() => log.lines.some((l) => l.level === "warn"), "the warning");
      expect(log.lines.find((l) => l.level === "warn")!.message).toBe(
        "background WAL checkpoints could not start; the database connection checkpoints by itself again",
      );
      expect(db.pragmaValue("wal_autocheckpoint")).toBe(1000);
    } finally {
      checkpoints.stop();
      db.close();
    }
  });

  it('regression: a worker that cannot open the database warned twice ("could not start", then "stopped" when it exited); now once', async () => {
    // The real Worker, observed: its instances are kept to wait for the exit.
    const workers: import("node:worker_threads").Worker[] = [];
    let start!: typeof startCheckpointer;
    jest.isolateModules(() => {
      jest.doMock("node:worker_threads", () => {
        const actual = jest.requireActual<typeof import("node:worker_threads")>("node:worker_threads");
        class ObservedWorker extends actual.Worker {
          constructor(...args: ConstructorParameters<typeof actual.Worker>) {
            super(...args);
            workers.push(this);
          }
        }
        return { ...actual, Worker: ObservedWorker };
      });
      start = (jest.requireActual("../../src/store/checkpointer") as typeof import("../../src/store/checkpointer")).startCheckpointer;
    });
    const db = openSqlite(path.join(tmp.dir, "own.sqlite"));
    db.pragma("journal_mode = WAL");
    const exited = new Promise((resolve) => {
      const checkpoints = start({ db, file: path.join(tmp.dir, "missing", "nowhere.sqlite"), logger: log.logger });
      workers[0]!.once("exit", () => setImmediate(() => resolve(checkpoints)));
    });
    const checkpoints = (await exited) as ReturnType<typeof startCheckpointer>;
    try {
      expect(log.lines.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
        "background WAL checkpoints could not start; the database connection checkpoints by itself again",
      ]);
      expect(db.pragmaValue("wal_autocheckpoint")).toBe(1000);
    } finally {
      checkpoints.stop();
      db.close();
      jest.dontMock("node:worker_threads");
    }
  });

  it("stop() right after start waits for the worker to close its connection", () => {
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    const file = database.file;
    database.db.exec("CREATE TABLE t (x)");
    database.close();
    // The last connection to close removes the log: the worker's was closed before the owner's.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });
});
