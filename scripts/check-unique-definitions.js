#!/usr/bin/env node
/**
 * One rule, one place: fails when a name is defined in more than one file under
 * src/ (or the directory given as the first argument). Plain node, no dependencies;
 * run by `npm run lint` after dependency-cruiser.
 *
 * What counts as a definition: a top-level (column 0) `const`/`let`/`var`,
 * `function`, `class` or `enum` declaration of a .ts file (`export`, `default`,
 * `declare`, `async`, `abstract` allowed in front). Types and interfaces are not
 * definitions here (a shape repeated is not a rule repeated), nor are re-exports
 * (`export { x } from "./y"`) or declarations inside functions.
 *
 * What is a duplicate (the same name in two or more files):
 *   1. an exported definition: two modules exporting the same name are two
 *      sources of one rule, or two rules under one name — either way, one goes;
 *   2. a top-level function, exported or not: a named piece of logic written twice;
 *   3. a non-exported top-level const/let/var/class/enum whose declaration text
 *      (whitespace-normalised) is the same in both files: a copied helper.
 * A non-exported constant that only shares its name (`const log = …` set up
 * differently in two files) is local wiring, not a copy, and is not reported.
 *
 * ALLOWED lists the names that may recur, each with the reason; keep it tiny.
 *
 * Exit code 0 when every name is unique, 1 with the list otherwise.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

/** name → why it may be defined in several files. */
const ALLOWED = new Map([]);

const DECLARATION =
  /^(export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(const\s+enum|const|let|var|function\s*\*?|class|enum)\s+([A-Za-z_$][\w$]*)/;

function listFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else if (entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out.sort();
}

/**
 * The declaration text starting at line `i`: that line alone when it ends the
 * statement (`;`), else up to the next line at column 0 — included when it closes
 * the declaration (`}`, `)`, `]`), not when it starts the next statement.
 */
function declarationText(lines, i) {
  const parts = [lines[i]];
  if (/;\s*$/.test(lines[i])) return parts[0];
  for (let j = i + 1; j < lines.length; j++) {
    const line = lines[j];
    if (/^\S/.test(line)) {
      if (/^[})\]]/.test(line)) parts.push(line);
      break;
    }
    parts.push(line);
  }
  return parts.join("\n");
}

/** Every top-level definition of one file. */
function definitionsOf(file, root) {
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split(/\r?\n/);
  const defs = [];
  let inBlockComment = false;
  lines.forEach((line, i) => {
    if (inBlockComment) {
      if (line.includes("*/")) inBlockComment = false;
      return;
    }
    if (/^\s*\/\*/.test(line) && !line.includes("*/")) {
      inBlockComment = true;
      return;
    }
    const m = DECLARATION.exec(line);
    if (!m) return;
    const kind = m[2].replace(/\s+/g, " ").replace(/\s*\*$/, "");
    defs.push({
      name: m[3],
      kind: kind.startsWith("function") ? "function" : kind,
      exported: m[1] !== undefined,
      body: declarationText(lines, i)
        .replace(/^export\s+/, "")
        .replace(/\s+/g, " ")
        .trim(),
      where: `${path.relative(root, file)}:${i + 1}`,
    });
  });
  return defs;
}

/** The duplicates under `dir`: [{ name, rule, places: ["file:line", …] }]. */
function findDuplicates(dir) {
  const root = path.resolve(dir, "..");
  const byName = new Map();
  for (const file of listFiles(dir)) {
    for (const def of definitionsOf(file, root)) {
      if (!byName.has(def.name)) byName.set(def.name, []);
      byName.get(def.name).push(def);
    }
  }
  const found = [];
  for (const [name, defs] of byName) {
    const files = new Set(defs.map((d) => d.where.replace(/:\d+$/, "")));
    if (files.size < 2 || ALLOWED.has(name)) continue;
    let rule;
    if (defs.some((d) => d.exported)) rule = "exported name defined in several files";
    else if (defs.some((d) => d.kind === "function")) rule = "top-level function defined in several files";
    else {
      const bodies = new Map();
      for (const d of defs) bodies.set(d.body, (bodies.get(d.body) ?? 0) + 1);
      if ([...bodies.values()].some((n) => n > 1)) rule = "the same top-level declaration copied into several files";
    }
    if (rule) found.push({ name, rule, places: defs.map((d) => d.where) });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

if (require.main === module) {
  const dir = path.resolve(process.argv[2] ?? path.join(__dirname, "..", "src"));
  const found = findDuplicates(dir);
  if (found.length === 0) {
    process.stdout.write(`check-unique-definitions: every definition under ${path.relative(process.cwd(), dir) || "."} is unique\n`);
    process.exit(0);
  }
  const lines = found.map((d) => `  ${d.name} (${d.rule}): ${d.places.join(", ")}`);
  process.stderr.write(
    `check-unique-definitions: ${found.length} name(s) defined in more than one file — keep one definition and import it:\n${lines.join("\n")}\n`,
  );
  process.exit(1);
}

module.exports = { findDuplicates, ALLOWED };
