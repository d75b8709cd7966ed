/**
 * The plugin database of a store test: a fresh temporary directory and a recording logger per test, the database
 * opened before each test and closed (with the directory removed) after it. `reopen()` closes and opens it again,
 * as a restart does.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { recordingLogger, tempDir } from "./temp-dir";

export interface TempDatabase {
  readonly dir: string;
  readonly log: ReturnType<typeof recordingLogger>;
  readonly database: PluginDatabase;
  reopen(): PluginDatabase;
}

export function useTempDatabase(module = "store"): TempDatabase {
  let tmp: ReturnType<typeof tempDir> | undefined;
  let log: ReturnType<typeof recordingLogger> | undefined;
  let database: PluginDatabase | undefined;
  const open = () => openPluginDatabase({ dir: tmp!.dir, logger: log!.logger });
  beforeEach(() => {
    tmp = tempDir();
    log = recordingLogger(module);
    database = open();
  });
  afterEach(() => {
    database?.close();
    log?.close();
    tmp?.remove();
  });
  const current = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useTempDatabase: ${what} is only there inside a test`);
    return value;
  };
  return {
    get dir() {
      return current(tmp, "dir").dir;
    },
    get log() {
      return current(log, "log");
    },
    get database() {
      return current(database, "database");
    },
    reopen() {
      current(database, "database").close();
      database = open();
      return database;
    },
  };
}
