/**
 * scripts/check-unique-definitions.js (run by `npm run lint`): which repeated names
 * it reports, which it leaves alone, and its exit code.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const SCRIPT = path.resolve(__dirname, "..", "..", "scripts", "check-unique-definitions.js");
const { findDuplicates } = require(SCRIPT) as { findDuplicates(dir: string): Array<{ name: string; rule: string; places: string[] }> };

let root: string;
let src: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "iw-unique-"));
  src = path.join(root, "src");
  fs.mkdirSync(path.join(src, "a"), { recursive: true });
  fs.mkdirSync(path.join(src, "b"), { recursive: true });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const write = (rel: string, text: string) => fs.writeFileSync(path.join(src, rel), text);
const names = () => findDuplicates(src).map((d) => [d.name, d.rule]);

test("an exported constant defined in two files is reported with both places", () => {
  write("a/one.ts", 'export const HOOK_PREFIX = "hook:";\n');
  write("b/two.ts", 'import x from "y";\n\nexport const HOOK_PREFIX = "hook:";\n');
  expect(findDuplicates(src)).toEqual([{ name: "HOOK_PREFIX", rule: "exported name defined in several files", places: ["src/a/one.ts:1", "src/b/two.ts:3"] }]);
});

test("an exported name and a private one with the same name are reported", () => {
  write("a/one.ts", "export function clip(s: string): string {\n  return s.slice(0, 10);\n}\n");
  write("b/two.ts", "const clip = (s: string) => s.slice(0, 5);\n");
  expect(names()).toEqual([["clip", "exported name defined in several files"]]);
});

test("two private top-level functions with one name are reported even when their bodies differ", () => {
  write("a/one.ts", "function describe(v: unknown): string {\n  return typeof v;\n}\n");
  write("b/two.ts", "async function describe(e: unknown): Promise<string> {\n  return String(e);\n}\n");
  expect(names()).toEqual([["describe", "top-level function defined in several files"]]);
});

test("a private constant copied word for word is reported; one set up differently is not", () => {
  const copied = 'const obj = (v: unknown): Obj =>\n  v && typeof v === "object" ? (v as Obj) : {};\n';
  write("a/one.ts", `${copied}const log = createLogger("a");\n`);
  write("b/two.ts", `${copied.replace("=>\n  v", "=>\n    v")}const log = createLogger("b");\n`);
  expect(names()).toEqual([["obj", "the same top-level declaration copied into several files"]]);
});

test("types, interfaces, re-exports, nested declarations and commented-out code are not definitions", () => {
  write(
    "a/one.ts",
    'export type Obj = Record<string, unknown>;\nexport interface Shape {\n  a: number;\n}\nexport { helper } from "./helper";\n/*\nfunction outer() {}\n*/\n',
  );
  write(
    "b/two.ts",
    "export type Obj = Record<string, unknown>;\nexport interface Shape {\n  b: number;\n}\nexport function outer(): void {\n  function helper(): void {}\n  helper();\n}\n",
  );
  write("a/helper.ts", "export function helper(): void {}\n");
  expect(names()).toEqual([]);
});

test("exit code 1 with the list on stderr; 0 when every name is unique", () => {
  write("a/one.ts", "export enum Mode {\n  A,\n}\n");
  write("b/two.ts", "export const enum Mode {\n  B,\n}\n");
  const dup = spawnSync(process.execPath, [SCRIPT, src], { encoding: "utf8" });
  expect(dup.status).toBe(1);
  expect(dup.stderr).toBe(
    "check-unique-definitions: 1 name(s) defined in more than one file — keep one definition and import it:\n" +
      "  Mode (exported name defined in several files): src/a/one.ts:1, src/b/two.ts:1\n",
  );
  fs.rmSync(path.join(src, "b", "two.ts"));
  const clean = spawnSync(process.execPath, [SCRIPT, src], { encoding: "utf8" });
  expect(clean.status).toBe(0);
});
