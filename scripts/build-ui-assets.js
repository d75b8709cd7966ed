#!/usr/bin/env node
/**
 * Part of `npm run build`: copies the dashboard's static files into
 * dist/inspector/assets/ — our CSS and browser scripts (src/inspector/assets/)
 * and uPlot from node_modules — so the gateway serves them itself (no CDN, no
 * bundler: they are plain browser files).
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const out = path.join(root, "dist", "inspector", "assets");
const sources = [
  ...["dashboard.css", "deliveries.js", "overview.js", "delivery.js", "favicon.svg"].map((f) => path.join(root, "src", "inspector", "assets", f)),
  ...["uPlot.iife.min.js", "uPlot.min.css"].map((f) => path.join(path.dirname(require.resolve("uplot/package.json")), "dist", f)),
];
fs.mkdirSync(out, { recursive: true });
for (const file of sources) fs.copyFileSync(file, path.join(out, path.basename(file)));
console.log(`dashboard assets: ${sources.length} files in ${path.relative(root, out)}`);
