"use strict";
/**
 * Baseline servers for `npm run bench`, run as a child process like the gateway:
 * `node bench/baseline-server.js http|express` prints `listening: <url>`.
 * - http: node:http, reads the body, answers 200 {"ok":true}.
 * - express: express with express.json() on POST /hooks/wake, answers 200 {"ok":true}.
 * They are the floor the gateway is compared against (same machine, same run).
 */
const http = require("node:http");
const express = require("express");

const kind = process.argv[2] ?? "express";

function listen(server) {
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    process.stdout.write(`listening: http://127.0.0.1:${port}\n`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

if (kind === "http") {
  listen(
    http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
        res.end('{"ok":true}');
      });
    }),
  );
} else if (kind === "express") {
  const app = express();
  app.post("/hooks/wake", express.json({ type: () => true, limit: "256kb" }), (_req, res) => {
    res.status(200).json({ ok: true });
  });
  listen(http.createServer(app));
} else {
  process.stderr.write(`unknown baseline "${kind}" (use http or express)\n`);
  process.exit(2);
}
