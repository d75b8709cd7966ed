/**
 * scripts/dist-freshness.js (`prestart` and the first and last steps of `npm run build`):
 * `npm start` rebuilt dist/ on every start (30–45 s of tsc on 2 cores) although nothing
 * had changed. It now builds only when dist/ holds no complete build or an input is newer
 * than the build's start.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const SCRIPT = path.resolve(__dirname, "..", "..", "scripts", "dist-freshness.js");
const freshness = require(SCRIPT) as {
  staleReason(root: string): string | undefined;
  clean(root: string): void;
  stamp(root: string): void;
  buildIfStale(root: string, opts: { log(line: string): void; build(): number }): number;
};

let root: string;
/** Sets a file's times `ms` in the past: inputs written "before" a build are older than its start. */
const past = (file: string, ms = 60_000) => fs.utimesSync(file, new Date(Date.now() - ms), new Date(Date.now() - ms));

function write(rel: string, text = "x"): string {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/** A tree with sources older than a complete build. */
function builtTree(): void {
  for (const f of ["src/a.ts", "src/gateway/b.ts", "tsconfig.json", "tsconfig.build.json", "package.json"]) past(write(f));
  for (const d of ["src/gateway", "src"]) past(path.join(root, d));
  freshness.clean(root);
  past(path.join(root, "dist", ".build-started"), 30_000);
  write("dist/a.js");
  freshness.stamp(root);
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "iw-freshness-"));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

test("a second npm start on an unchanged tree does not rebuild", () => {
  builtTree();
  const lines: string[] = [];
  let builds = 0;
  const code = freshness.buildIfStale(root, { log: (l) => lines.push(l), build: () => ++builds && 0 });
  expect(code).toBe(0);
  expect(builds).toBe(0);
  expect(lines).toEqual(["build: dist/ is up to date, not rebuilding (`npm run build` forces a build)"]);
});

test("a source saved after the build rebuilds, naming the file", () => {
  builtTree();
  write("src/gateway/b.ts", "changed");
  let builds = 0;
  const lines: string[] = [];
  expect(freshness.buildIfStale(root, { log: (l) => lines.push(l), build: () => ++builds && 0 })).toBe(0);
  expect(builds).toBe(1);
  expect(lines).toEqual([`build: ${path.join("src", "gateway", "b.ts")} changed since the last build; building (npm run build)`]);
});

test("a deleted source rebuilds (its folder changed)", () => {
  builtTree();
  fs.rmSync(path.join(root, "src", "gateway", "b.ts"));
  expect(freshness.staleReason(root)).toBe(`${path.join("src", "gateway")} changed since the last build`);
});

test("a changed tsconfig or package.json rebuilds", () => {
  builtTree();
  write("tsconfig.build.json", "{}");
  expect(freshness.staleReason(root)).toBe("tsconfig.build.json changed since the last build");
});

test("a build that never finished (no stamp) rebuilds, and the build's exit code is the start's", () => {
  builtTree();
  freshness.clean(root); // the next build started and was interrupted before its last step
  expect(freshness.staleReason(root)).toBe("dist/ holds no complete build");
  expect(freshness.buildIfStale(root, { log: () => undefined, build: () => 2 })).toBe(2);
});

test("no dist/ at all (a fresh clone) builds", () => {
  write("src/a.ts");
  expect(freshness.staleReason(root)).toBe("dist/ holds no complete build");
});

test("a source saved while the build was running is newer than the stamp (the stamp keeps the build's start time)", () => {
  builtTree();
  freshness.clean(root);
  const started = fs.statSync(path.join(root, "dist", ".build-started")).mtimeMs;
  const during = write("src/a.ts", "saved while tsc ran");
  fs.utimesSync(during, new Date(started + 5_000), new Date(started + 5_000));
  freshness.stamp(root);
  expect(fs.statSync(path.join(root, "dist", ".build-stamp")).mtimeMs).toBe(started);
  expect(freshness.staleReason(root)).toBe(`${path.join("src", "a.ts")} changed since the last build`);
});
