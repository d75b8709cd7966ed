#!/usr/bin/env node
"use strict";
// The `gateway` CLI. The implementation is the built TypeScript in dist/gateway.
const path = require("node:path");
const fs = require("node:fs");

const entry = path.join(__dirname, "..", "dist", "gateway", "cli", "main.js");
if (!fs.existsSync(entry)) {
  // The packed package (npm pack) is the plugin only, bundled for its hosts: the gateway runs from a clone.
  const clone = fs.existsSync(path.join(__dirname, "..", "src"));
  process.stderr.write(
    clone
      ? "gateway: not built yet; run `npm run build` (or `npm start`, which builds first)\n"
      : "gateway: this package is the plugin, bundled for OpenClaw and the gateway's plugins install; the gateway itself runs from a clone of the repository (npm install && npm start)\n",
  );
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
