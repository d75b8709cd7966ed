/**
 * The transform loader runs inside jest (its own module registry and VM context)
 * in the other tests. Here the mapping engine is compiled to CommonJS the way the
 * build does it and run by plain `node`, as in the built gateway: .js, .mjs, .cjs
 * and .ts transforms load, the `inbound-webhooks` import resolves, and editing a
 * .ts, .mjs or .cjs transform changes the next result (relative helper imports:
 * see docs/mappings.md "Reloading").
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { tempDir, TRANSFORM_FIXTURES } from "./helpers";

const ROOT = path.resolve(__dirname, "../..");
const SRC = path.join(ROOT, "src");

/** Transpiles `entry` and every module it imports relatively into `outDir` (same layout as dist/). */
function transpileClosure(entry: string, outDir: string): void {
  const todo = [entry];
  const done = new Set<string>();
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (done.has(file)) continue;
    done.add(file);
    const source = fs.readFileSync(file, "utf8");
    for (const m of source.matchAll(/(?:from|import)\s+"(\.{1,2}\/[^"]+)"/g)) {
      todo.push(path.resolve(path.dirname(file), `${m[1]}.ts`));
    }
    const out = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: file,
    });
    const target = path.join(outDir, path.relative(SRC, file)).replace(/\.ts$/, ".js");
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, out.outputText);
  }
}

const SCRIPT = `
const fs = require("node:fs");
const path = require("node:path");
const { createMappingEngine } = require("./mappings/engine.js");
const [dir] = process.argv.slice(2);
const logger = { debug() {}, info() {}, warn() {}, error(m, meta) { console.error(m, JSON.stringify(meta)); } };
const base = { enabled: true, token: "x".repeat(32), path: "/hooks", maxBodyBytes: 1000, bodyTimeoutMs: 1000, allowQueryToken: true,
  presets: [], transformsDir: dir, transformTimeoutMs: 5000, allowedSessionKeyPrefixes: ["hook:"],
  runs: { maxConcurrent: 1, maxQueued: 1, shutdownGraceSeconds: 1, retryInterrupted: false }, idempotency: { ttlSeconds: 1 },
  rateLimit: { enabled: false, max: 1, windowSeconds: 1 }, authThrottle: { maxFailures: 1, windowSeconds: 1 }, defaultTimeoutSeconds: 60 };
const mappings = [
  { id: "ts", match: { path: "ts" }, action: "agent", transform: { module: "summarize.ts" } },
  { id: "mjs", match: { path: "mjs" }, action: "agent", transform: { module: "never-edited.mjs" } },
  { id: "cjs", match: { path: "cjs" }, action: "agent", transform: { module: "skip.js" } },
  { id: "esm-js", match: { path: "esm-js" }, action: "agent", transform: { module: "github-push.js" } },
  { id: "live", match: { path: "live" }, action: "agent", transform: { module: "live.ts" } },
  { id: "builtin", match: { path: "builtin" }, action: "agent", messageTemplate: "x", transform: { module: "digest.ts" } },
  { id: "tla", match: { path: "tla" }, action: "agent", transform: { module: "tla.mjs" } },
  { id: "live-mjs", match: { path: "live-mjs" }, action: "agent", transform: { module: "live.mjs" } },
  { id: "plain-mjs", match: { path: "plain-mjs" }, action: "agent", transform: { module: "plain.mjs" } },
  { id: "live-cjs", match: { path: "live-cjs" }, action: "agent", transform: { module: "live.cjs" } },
];
const engine = createMappingEngine({ config: { ...base, mappings }, presets: [], logger, clock: () => new Date("2025-01-01T00:00:00Z") });
const input = (name, payload, headers = {}) => ({ name, payload, headers, query: {}, url: "/hooks/" + name, requestId: "r" });
(async () => {
  const out = {};
  out.ts = await engine.resolve(input("ts", { readings: [{ sensor: "a", value: 1 }] }));
  out.mjs = await engine.resolve(input("mjs", {}));
  out.cjs = await engine.resolve(input("cjs", {}));
  out.esmJs = await engine.resolve(input("esm-js", { repository: { full_name: "o/r" }, ref: "refs/heads/main", commits: [] }, { "x-github-event": "push" }));
  out.builtin = await engine.resolve(input("builtin", { orderId: "A-1001" }));
  out.tla = await engine.resolve(input("tla", {}));
  out.live1 = await engine.resolve(input("live", {}));
  fs.writeFileSync(path.join(dir, "live.ts"), 'export default (): { message: string } => ({ message: "two" });\\n');
  out.live2 = await engine.resolve(input("live", {}));
  const msg = async (name) => (await engine.resolve(input(name, {}))).value.raw.message;
  const write = (file, text) => fs.writeFileSync(path.join(dir, file), text);
  out.plain1 = await msg("plain-mjs");
  write("plain.mjs", 'export default async () => ({ message: "plain two" });\\n');
  out.plain2 = await msg("plain-mjs");
  out.mjs1 = await msg("live-mjs");
  out.cjs1 = await msg("live-cjs");
  write("live.mjs", 'import { suffix } from "./lib/suffix.ts";\\nconst v = await Promise.resolve("mjs two");\\nexport default () => ({ message: v + suffix });\\n');
  write("live.cjs", 'const { suffix } = require("./lib/suffix.cjs");\\nmodule.exports = () => ({ message: "cjs two" + suffix });\\n');
  out.mjs2 = await msg("live-mjs");
  out.cjs2 = await msg("live-cjs");
  // Only the helpers change: the transforms are not reloaded.
  write("lib/suffix.ts", 'export const suffix: string = " / ts helper 2";\\n');
  write("lib/suffix.cjs", 'exports.suffix = " / cjs helper 2";\\n');
  out.mjs3 = await msg("live-mjs");
  out.cjs3 = await msg("live-cjs");
  // The transforms change again: a transpiled (.ts) helper is read afresh, a .cjs one stays in Node's cache.
  write("live.mjs", 'import { suffix } from "./lib/suffix.ts";\\nexport default () => ({ message: "mjs three" + suffix });\\n');
  write("live.cjs", 'const { suffix } = require("./lib/suffix.cjs");\\nmodule.exports = () => ({ message: "cjs three" + suffix });\\n');
  out.mjs4 = await msg("live-mjs");
  out.cjs4 = await msg("live-cjs");
  process.stdout.write(JSON.stringify(out));
})();
`;

describe("the mapping engine under plain node (as in the built dist)", () => {
  let work: string;
  beforeAll(() => {
    work = tempDir("iw-engine-node-");
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  test("loads .ts, .mjs (with top-level await), .cjs and ESM .js transforms, Node built-ins, and reloads edited .ts, .mjs and .cjs files", () => {
    const build = path.join(work, "build");
    const dir = path.join(work, "transforms");
    transpileClosure(path.join(SRC, "mappings/engine.ts"), build);
    fs.mkdirSync(dir);
    for (const f of ["summarize.ts", "skip.js", "github-push.js", "digest.ts"]) fs.copyFileSync(path.join(TRANSFORM_FIXTURES, f), path.join(dir, f));
    fs.writeFileSync(path.join(dir, "never-edited.mjs"), 'export default async () => ({ kind: "wake", text: "from mjs" });\n');
    fs.writeFileSync(path.join(dir, "tla.mjs"), 'const greeting = await Promise.resolve("top-level await");\nexport default () => ({ message: greeting });\n');
    fs.writeFileSync(path.join(dir, "live.ts"), 'export default (): { message: string } => ({ message: "one" });\n');
    fs.mkdirSync(path.join(dir, "lib"));
    fs.writeFileSync(path.join(dir, "lib/suffix.ts"), 'export const suffix: string = " / ts helper 1";\n');
    fs.writeFileSync(path.join(dir, "lib/suffix.cjs"), 'exports.suffix = " / cjs helper 1";\n');
    fs.writeFileSync(
      path.join(dir, "live.mjs"),
      'import { suffix } from "./lib/suffix.ts";\nconst v = await Promise.resolve("mjs one");\nexport default () => ({ message: v + suffix });\n',
    );
    fs.writeFileSync(path.join(dir, "plain.mjs"), 'export default async () => ({ message: "plain one" });\n');
    fs.writeFileSync(
      path.join(dir, "live.cjs"),
      'const { suffix } = require("./lib/suffix.cjs");\nmodule.exports = () => ({ message: "cjs one" + suffix });\n',
    );
    fs.writeFileSync(path.join(build, "run.js"), SCRIPT);

    const stdout = execFileSync(process.execPath, [path.join(build, "run.js"), dir], {
      env: { ...process.env, NODE_PATH: path.join(ROOT, "node_modules") },
      encoding: "utf8",
    });
    const out = JSON.parse(stdout);
    expect(out.ts).toEqual({
      ok: true,
      value: {
        kind: "action",
        mappingId: "ts",
        allowUnsafeExternalContent: false,
        raw: { kind: "wake", mode: "next-heartbeat", text: "Readings from ts (ts): a=1" },
      },
    });
    expect(out.mjs).toEqual({
      ok: true,
      value: { kind: "action", mappingId: "mjs", allowUnsafeExternalContent: false, raw: { kind: "wake", text: "from mjs" } },
    });
    expect(out.cjs).toEqual({ ok: true, value: { kind: "skip", mappingId: "cjs" } });
    expect(out.esmJs.value.raw).toEqual({ kind: "agent", name: "GitHub", sessionKey: "hook:github:o/r", message: "0 commit(s) pushed to o/r on main:" });
    expect(out.builtin.value.raw.sessionKey).toBe("hook:orders:0b1336d9f2ad");
    expect(out.tla.value.raw.message).toBe("top-level await");
    expect(out.live1.value.raw.message).toBe("one");
    expect(out.live2.value.raw.message).toBe("two");
    // .mjs and .cjs transforms reload too (Node's own module caches are bypassed), relative imports included.
    expect([out.plain1, out.plain2]).toEqual(["plain one", "plain two"]);
    expect([out.mjs1, out.mjs2, out.mjs3, out.mjs4]).toEqual([
      "mjs one / ts helper 1",
      "mjs two / ts helper 1",
      "mjs two / ts helper 1",
      "mjs three / ts helper 2",
    ]);
    expect([out.cjs1, out.cjs2, out.cjs3, out.cjs4]).toEqual([
      "cjs one / cjs helper 1",
      "cjs two / cjs helper 1",
      "cjs two / cjs helper 1",
      "cjs three / cjs helper 1",
    ]);
  });
});
