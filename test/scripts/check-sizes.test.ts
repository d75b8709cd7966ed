/**
 * scripts/check-sizes.js (run by `npm run lint`): a file over 300 lines or a function
 * over 80 lines of its own fails with its place; nested functions, blank lines and
 * comment lines do not count towards the outer function.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const SCRIPT = path.resolve(__dirname, "..", "..", "scripts", "check-sizes.js");

let src: string;
beforeEach(() => {
  src = fs.mkdtempSync(path.join(os.tmpdir(), "iw-sizes-"));
});
afterEach(() => fs.rmSync(src, { recursive: true, force: true }));

const write = (rel: string, text: string) => fs.writeFileSync(path.join(src, rel), text);
const run = () => spawnSync(process.execPath, [SCRIPT, src], { encoding: "utf8" });
const statements = (n: number, indent = "  ") => Array.from({ length: n }, (_, i) => `${indent}const v${i} = ${i};`).join("\n");

test("a function of 80 own lines passes; 81 fails naming the file, line and function", () => {
  write("ok.ts", `export function fits(): void {\n${statements(78)}\n}\n`);
  expect(run().status).toBe(0);
  write("long.ts", `\nexport function tooLong(): void {\n${statements(79)}\n}\n`);
  const r = run();
  expect(r.status).toBe(1);
  expect(r.stderr).toContain("long.ts:2: function tooLong has 81 lines of its own (at most 80)");
});

test("nested functions count on their own, not towards the outer one; blank and comment lines do not count", () => {
  const inner = `  const inner = () => {\n${statements(60, "    ")}\n  };`;
  const comments = Array.from({ length: 40 }, () => "  // a comment line\n\n").join("");
  write("nested.ts", `export function outer(): void {\n${statements(30)}\n${comments}${inner}\n}\n`);
  expect(run().status).toBe(0);
});

test("a file over 300 lines fails with its line count", () => {
  write("big.ts", `${Array.from({ length: 301 }, (_, i) => `export const c${i} = ${i};`).join("\n")}\n`);
  const r = run();
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/big\.ts: 301 lines \(at most 300\)/);
});
