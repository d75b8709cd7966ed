#!/usr/bin/env node
/**
 * Part of `npm run build` (after tsc and the dashboard's assets): the entry every host loads from the
 * packed package, bundled with every JavaScript library it imports into one file, dist/bundle/index.js,
 * so the package `npm pack` ships declares no runtime dependencies (docs/openclaw.md "Packaging"). It is
 * both hosts' entry: OpenClaw's (package.json#openclaw.extensions: dist/hosts/openclaw/plugin-entry.js's
 * exports, `register` and the default plugin object) and the embedded gateway's (plugin.json#main:
 * dist/plugin/index.js's `activate`, `configProblems`, `defineTransform`).
 *
 * Why: OpenClaw copies a package plugin with every package its package.json declares into its state
 * dir at each load ("source capture"); with this package's 24 libraries (5,480 files) that was most of
 * every `openclaw inbound-webhooks …` command.
 *
 * Left outside (resolved at run time, never bundled): `better-sqlite3` (a native addon, needed only on
 * Node < 22.13, which has no node:sqlite: an optional peer dependency, from the host's node_modules),
 * OpenClaw's own SDK (`openclaw/…`), and the optional modules of libraries that are never installed
 * (pg-native). A module of dist/ that reads a file beside itself (`__dirname`: the inspector's assets,
 * plugin.json) reads it from the same place as before bundling: `__dirname` is rewritten to its
 * folder in dist/, relative to the bundle. A new run-time file read that way must be in
 * package.json#files; a new library import needs nothing (it is bundled), unless it is native.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const esbuild = require("esbuild");

const root = path.resolve(__dirname, "..");
const dist = path.join(root, "dist");
const outdir = path.join(dist, "bundle");

/** Resolved by the host at run time: never bundled. */
const EXTERNAL = ["better-sqlite3", "openclaw", "openclaw/*", "pg-native"];

/**
 * Libraries the plugin's modules import at their top but use only inside functions (the mail watcher, the
 * inspector's Express app, Postgres, metrics, transforms): a module of dist/ gets a stand-in that loads the
 * library at its first use, so a CLI command or a start that never reads mail does not pay for loading
 * them (they were 1.3 s of CPU of every `openclaw inbound-webhooks …` command). The stand-in serves the
 * library's exports as `require` would (and `default` as tsc's `__importDefault` reads it).
 */
const LAZY = ["imapflow", "mailparser", "html-to-text", "express", "pg", "prom-client", "jiti", "busboy"];

const lazyLibraries = {
  name: "lazy-libraries",
  setup(build) {
    const filter = new RegExp(`^(${LAZY.map((n) => n.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")).join("|")})$`);
    build.onResolve({ filter }, (args) => (args.importer.startsWith(dist + path.sep) ? { path: args.path, namespace: "lazy" } : undefined));
    build.onLoad({ filter: /.*/, namespace: "lazy" }, (args) => ({
      resolveDir: root,
      loader: "js",
      contents: `"use strict";
let real;
const load = () => (real ??= require(${JSON.stringify(args.path)}));
const exportOf = (key) => {
  const m = load();
  return key === "default" && !(m && m.__esModule) ? m : m[key];
};
module.exports = new Proxy(Object.create(null), {
  get: (_t, key) => (key === "__esModule" ? true : exportOf(key)),
  has: (_t, key) => key === "__esModule" || key in load(),
  ownKeys: () => [...new Set([...Reflect.ownKeys(load()), "default", "__esModule"])],
  getOwnPropertyDescriptor: (_t, key) => ({ configurable: true, enumerable: true, writable: false, value: key === "__esModule" ? true : exportOf(key) }),
});
`,
    }));
  },
};

/** The bundle's entry: OpenClaw's entry module with the embedded gateway's entry points added. */
const ENTRY = `"use strict";
const openclaw = require("../hosts/openclaw/plugin-entry.js");
const plugin = require("../plugin/index.js");
Object.defineProperty(exports, "__esModule", { value: true });
Object.assign(exports, openclaw, { activate: plugin.activate, configProblems: plugin.configProblems, defineTransform: plugin.defineTransform });
`;

/** `__dirname` / `__filename` of a module of dist/ keep their pre-bundle meaning (see above). */
const keepOwnPaths = {
  name: "keep-own-paths",
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(dist + path.sep)) return undefined;
      const text = await fs.promises.readFile(args.path, "utf8");
      if (!/\b__(dirname|filename)\b/.test(text)) return undefined;
      const dir = path.relative(outdir, path.dirname(args.path)).split(path.sep).join("/");
      const file = path.relative(outdir, args.path).split(path.sep).join("/");
      const contents = text
        .replace(/\b__dirname\b/g, `require("node:path").join(__dirname, ${JSON.stringify(dir)})`)
        .replace(/\b__filename\b/g, `require("node:path").join(__dirname, ${JSON.stringify(file)})`);
      return { contents, loader: "js" };
    });
  },
};

async function main() {
  fs.rmSync(outdir, { recursive: true, force: true });
  fs.mkdirSync(outdir, { recursive: true });
  const result = await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: outdir, sourcefile: "entry.js", loader: "js" },
    outfile: path.join(outdir, "index.js"),
    bundle: true,
    platform: "node",
    target: "node20.19",
    format: "cjs",
    external: EXTERNAL,
    plugins: [keepOwnPaths, lazyLibraries],
    sourcemap: "linked",
    // Whitespace and syntax only: names stay as written, so stack traces and error names read as in dist/.
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    legalComments: "linked",
    metafile: true,
    logLevel: "warning",
    logOverride: { "unsupported-dynamic-import": "silent", "unsupported-require-call": "silent" },
  });
  const sizes = Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith(".js"))
    .map(([file, out]) => `${path.basename(file)} ${(out.bytes / 1e6).toFixed(1)} MB`);
  console.log(`bundles: ${sizes.join(", ")} in ${path.relative(root, outdir)}`);
}

main().catch((e) => {
  console.error(e && e.message ? e.message : e);
  process.exit(1);
});
