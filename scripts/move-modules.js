#!/usr/bin/env node
// Moves TypeScript modules (git mv) and rewrites every relative import that points at them.
// Usage: node scripts/move-modules.js moves.txt   (lines: "old/path.ts new/path.ts")
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const root = process.cwd();
const moves = new Map();
for (const line of fs.readFileSync(process.argv[2], "utf8").split("\n")) {
  const t = line.trim();
  if (!t || t.startsWith("#")) continue;
  const [from, to] = t.split(/\s+/);
  moves.set(path.resolve(root, from), path.resolve(root, to));
}
const files = execFileSync("git", ["ls-files", "src", "test", "bench", "examples", "bin", "scripts"], { encoding: "utf8" })
  .split("\n").filter((f) => /\.(ts|js|mjs|cjs)$/.test(f)).map((f) => path.resolve(root, f));
const exists = (p) => fs.existsSync(p) && fs.statSync(p).isFile();
function resolveOld(fromDir, spec) {
  const base = path.resolve(fromDir, spec);
  for (const c of [base, base + ".ts", path.join(base, "index.ts")]) if (exists(c)) return c;
  return undefined;
}
const mapped = (p) => moves.get(p) ?? p;
const SPEC = /((?:from|import|require|mock|requireActual|resolve)\s*\(?\s*)(["'])(\.{1,2}\/[^"']*)\2/g;
const updates = [];
for (const file of files) {
  const src = fs.readFileSync(file, "utf8");
  const newFile = mapped(file);
  const out = src.replace(SPEC, (m, pre, q, spec) => {
    const target = resolveOld(path.dirname(file), spec);
    if (!target) return m;
    const newTarget = mapped(target);
    if (newTarget === target && newFile === file) return m;
    let rel;
    if (target.endsWith(".ts") && !spec.endsWith(".ts")) {
      const stripIndex = target.endsWith("/index.ts") && !spec.endsWith("index");
      rel = path.relative(path.dirname(newFile), stripIndex ? path.dirname(newTarget) : newTarget.replace(/\.ts$/, ""));
    } else rel = path.relative(path.dirname(newFile), newTarget);
    if (!rel.startsWith(".")) rel = "./" + rel;
    return pre + q + rel + q;
  });
  if (out !== src) updates.push([file, out]);
}
for (const [file, out] of updates) fs.writeFileSync(file, out);
for (const [from, to] of moves) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  execFileSync("git", ["mv", path.relative(root, from), path.relative(root, to)]);
}
console.log(`moved ${moves.size} files, rewrote imports in ${updates.length}`);
