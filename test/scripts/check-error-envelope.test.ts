/**
 * scripts/check-error-envelope.js (run by `npm run lint`): an error envelope written by hand
 * outside host-contract/json-response.ts fails with its place; results that are not answers pass.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const SCRIPT = path.resolve(__dirname, "..", "..", "scripts", "check-error-envelope.js");

let src: string;
beforeEach(() => {
  src = fs.mkdtempSync(path.join(os.tmpdir(), "iw-envelope-"));
  fs.mkdirSync(path.join(src, "host-contract"));
});
afterEach(() => fs.rmSync(src, { recursive: true, force: true }));

const write = (rel: string, text: string) => fs.writeFileSync(path.join(src, rel), text);
const run = () => spawnSync(process.execPath, [SCRIPT, src], { encoding: "utf8" });

test("a hand-written envelope fails naming the file and line", () => {
  write("route.ts", `export const a = 1;\nres.json({ ok: false, code: "not_found", error: "No such thing." });\n`);
  const r = run();
  expect(r.status).toBe(1);
  expect(r.stderr).toContain("route.ts:2: writes { ok: false, code, error } by hand");
});

test("the shorthand form fails too", () => {
  write("ui.ts", `res.json({ ok: false, code, error: message });\n`);
  expect(run().status).toBe(1);
});

test("the renderer itself, errorBody() calls and results that are not answers pass", () => {
  write(path.join("host-contract", "json-response.ts"), `export const b = { ok: false, code, error };\n`);
  write(
    "route.ts",
    `res.json(errorBody("not_found", "No such thing."));\nreturn { ok: false, reason: "x" };\nreturn { ok: false, problem };\n/** Writes { ok: false, code, error }. */\n// { ok: false, code }\n`,
  );
  const r = run();
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
});

test("the project's src/ passes", () => {
  const r = spawnSync(process.execPath, [SCRIPT], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
});
