#!/usr/bin/env node
"use strict";
// The `gateway` CLI. The implementation is the built TypeScript in dist/gateway.
const path = require("node:path");
const fs = require("node:fs");

const entry = path.join(__dirname, "..", "dist", "gateway", "cli", "main.js");
if (!fs.existsSync(entry)) {
  process.stderr.write("gateway: not built yet; run `npm run build` (or `npm start`, which builds first)\n");
  process.exit(1);
}
require(entry)
  .main(process.argv)
  .then((code) => {
    process.exitCode = code;
    // Leave no lingering handle (keep-alive sockets, timers of stopped plugins).
    process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
  })
  .catch((e) => {
    process.stderr.write(`gateway: ${e && e.message ? e.message : String(e)}\n`);
    process.exit(1);
  });
