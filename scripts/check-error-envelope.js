#!/usr/bin/env node
/**
 * One error renderer: fails when a .ts file under src/ (or the directory given as the
 * first argument) writes the error envelope `{ ok: false, code, error }` by hand. Every
 * error answer of both hosts and the CLI's --json errors come from errorBody() in
 * src/host-contract/json-response.ts (or HookError.toBody(), which calls it), so the
 * shape is defined once. Run by `npm run lint`; plain node, no dependencies.
 *
 * What counts: an object literal that opens with `ok: false` followed by a `code` key
 * (`{ ok: false, code: …`, `{ ok: false, code, …`), on one line of code (comment lines, which
 * describe the shape, are skipped). Results of the form
 * `{ ok: false, reason }` or `{ ok: false, problem }` are not answers and pass.
 * The scan is a plain substring search per line (linear, no regular expression).
 *
 * Exit code 0 when no file does, 1 with each place otherwise.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

/** The renderer itself. */
const RENDERER = path.join("host-contract", "json-response.ts");

function listFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else if (entry.name.endsWith(".ts")) out.push(full);
  }
  return out;
}

/** True when `line` has `ok: false` directly followed by a `code` key. */
function writesEnvelope(line) {
  const code = line.trimStart();
  if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) return false;
  let from = 0;
  for (;;) {
    const at = line.indexOf("ok: false,", from);
    if (at < 0) return false;
    const rest = line.slice(at + "ok: false,".length).trimStart();
    if (rest.startsWith("code:") || rest.startsWith("code,") || rest.startsWith("code }")) return true;
    from = at + 1;
  }
}

const root = path.resolve(process.argv[2] ?? path.join(__dirname, "..", "src"));
const places = [];
for (const file of listFiles(root)) {
  const rel = path.relative(root, file);
  if (rel === RENDERER) continue;
  fs.readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (writesEnvelope(line)) places.push(`${rel}:${i + 1}: writes { ok: false, code, error } by hand; use errorBody() from host-contract/json-response.ts`);
    });
}
if (places.length > 0) {
  process.stderr.write(`${places.join("\n")}\n`);
  process.exit(1);
}
