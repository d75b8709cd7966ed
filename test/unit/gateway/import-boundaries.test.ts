/**
 * The gateway knows the plugin only through plugin.json and the host contract
 * (src/plugin/host-api.ts); the plugin never imports the gateway.
 */
import fs from "node:fs";
import path from "node:path";

const SRC = path.resolve(__dirname, "..", "..", "..", "src");

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? tsFiles(p) : d.name.endsWith(".ts") ? [p] : [];
  });
}

/** Relative module specifiers of imports, exports, require() and import() in a file, resolved to absolute paths. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:from\s+|require\(\s*|import\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]!);
  return specs.map((s) => path.resolve(path.dirname(file), s));
}

const inside = (dir: string, p: string) => p === dir || p.startsWith(`${dir}${path.sep}`);

describe("import boundaries", () => {
  const gatewayDir = path.join(SRC, "gateway");
  const hostApi = path.join(SRC, "plugin", "host-api");

  it("the gateway imports nothing of the plugin except the host contract", () => {
    const files = tsFiles(gatewayDir);
    expect(files.length).toBeGreaterThan(10);
    const offending = files.flatMap((f) =>
      importsOf(f)
        .filter((target) => !inside(gatewayDir, target) && target.replace(/\.(js|ts)$/, "") !== hostApi)
        .map((target) => `${path.relative(SRC, f)} → ${path.relative(SRC, target)}`),
    );
    expect(offending).toEqual([]);
  });

  it("no plugin module imports the gateway", () => {
    const files = tsFiles(SRC).filter((f) => !inside(gatewayDir, f));
    const offending = files.flatMap((f) => importsOf(f).filter((t) => inside(gatewayDir, t)).map((t) => `${path.relative(SRC, f)} → ${path.relative(SRC, t)}`));
    expect(offending).toEqual([]);
  });

  it("detects a forbidden import (self-check of the scanner)", () => {
    const fake = path.join(gatewayDir, "x.ts");
    const tmp = path.join(require("node:os").tmpdir(), "boundary-check.ts");
    fs.writeFileSync(tmp, 'import { activate } from "../plugin/index";\nconst r = require("../http/router");\n');
    const found = importsOf(tmp).map((p) => path.relative(path.dirname(tmp), p));
    expect(found).toEqual([path.join("..", "plugin", "index"), path.join("..", "http", "router")]);
    expect(inside(gatewayDir, fake)).toBe(true);
  });
});
