#!/usr/bin/env node
/**
 * Size limits (docs/architecture.md "Size limits"), run by `npm run lint`: no file
 * under src/ over MAX_FILE_LINES lines, no function over MAX_FUNCTION_LINES lines of
 * its own. Uses the TypeScript compiler API to find every function (declarations,
 * expressions, arrows, methods, accessors, constructors).
 *
 * A function's own lines are the lines of its span that hold code — blank lines and
 * lines with only a comment are not counted — minus the lines of the functions
 * nested in it (each nested function counts on its own; the line where it starts
 * stays with the outer one). A file's lines are all its lines.
 *
 * Usage: node scripts/check-sizes.js [dir]   (default src). Exit 1 with the list.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const ts = require("typescript");

const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;

function tsFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(full));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

/** Lines (0-based) that hold code: not blank, not only a comment. */
function codeLines(source) {
  const text = source.text;
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const tokenLines = new Set();
  // Comments, newlines and whitespace are trivia: a line with only those holds no code.
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (
      kind === ts.SyntaxKind.SingleLineCommentTrivia ||
      kind === ts.SyntaxKind.MultiLineCommentTrivia ||
      kind === ts.SyntaxKind.NewLineTrivia ||
      kind === ts.SyntaxKind.WhitespaceTrivia
    )
      continue;
    const start = source.getLineAndCharacterOfPosition(scanner.getTokenStart()).line;
    const end = source.getLineAndCharacterOfPosition(scanner.getTokenEnd()).line;
    for (let l = start; l <= end; l++) tokenLines.add(l);
  }
  return tokenLines;
}

const isFunction = (n) =>
  ts.isFunctionDeclaration(n) ||
  ts.isFunctionExpression(n) ||
  ts.isArrowFunction(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n);

function functionName(n, source) {
  if (n.name) return n.name.getText(source);
  const p = n.parent;
  if (p && ts.isVariableDeclaration(p)) return p.name.getText(source);
  if (p && ts.isPropertyAssignment(p)) return p.name.getText(source);
  if (p && ts.isCallExpression(p)) return `callback of ${p.expression.getText(source).slice(0, 40)}`;
  return "(anonymous)";
}

function check(file, problems) {
  const text = fs.readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const total = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
  const rel = path.relative(process.cwd(), file);
  if (total > MAX_FILE_LINES) problems.push(`${rel}: ${total} lines (at most ${MAX_FILE_LINES})`);
  const code = codeLines(source);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node) => {
    if (isFunction(node)) {
      const own = new Set();
      for (let l = lineOf(node.getStart(source)); l <= lineOf(node.getEnd()); l++) if (code.has(l)) own.add(l);
      const dropNested = (n) => {
        if (n !== node && isFunction(n)) {
          for (let l = lineOf(n.getStart(source)) + 1; l <= lineOf(n.getEnd()); l++) own.delete(l);
          return;
        }
        ts.forEachChild(n, dropNested);
      };
      ts.forEachChild(node, dropNested);
      if (own.size > MAX_FUNCTION_LINES)
        problems.push(
          `${rel}:${lineOf(node.getStart(source)) + 1}: function ${functionName(node, source)} has ${own.size} lines of its own (at most ${MAX_FUNCTION_LINES})`,
        );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const root = path.resolve(process.argv[2] ?? "src");
const problems = [];
for (const file of tsFiles(root)) check(file, problems);
if (problems.length > 0) {
  console.error(`check-sizes: ${problems.length} size limit(s) exceeded — split the file or extract functions:`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(
  `check-sizes: every file under ${path.relative(process.cwd(), root) || "."} is within ${MAX_FILE_LINES} lines and every function within ${MAX_FUNCTION_LINES} lines of its own`,
);
