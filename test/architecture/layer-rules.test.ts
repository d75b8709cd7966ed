/**
 * The layer rules of .dependency-cruiser.cjs (docs/architecture.md): the real
 * src/ has no violation, and each kind of upward import in a small tree is
 * refused with the rule's name.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const CONFIG = path.join(ROOT, ".dependency-cruiser.cjs");
const DEPCRUISE = path.join(ROOT, "node_modules", ".bin", "depcruise");

function depcruise(cwd: string): { status: number | null; out: string } {
  const r = spawnSync(DEPCRUISE, ["src", "--config", CONFIG, "--output-type", "err"], { cwd, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Writes `files` (path → source) under a temp dir with a minimal tsconfig. */
function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-layers-"));
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "node16", moduleResolution: "node16", strict: true } }));
  for (const [file, source] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), source);
  }
  return dir;
}

describe("layer rules", () => {
  it("the project's src/ has no dependency violation", () => {
    const r = depcruise(ROOT);
    expect(r.out).toContain("no dependency violations found");
    expect(r.status).toBe(0);
  });

  const cases: Array<[rule: string, files: Record<string, string>]> = [
    [
      "domain-never-imports-adapters",
      { "src/mappings/a.ts": 'import { b } from "../intake/b";\nexport const a = b;\n', "src/intake/b.ts": "export const b = 1;\n" },
    ],
    ["domain-order-safety", { "src/safety/a.ts": 'import { b } from "../runs/b";\nexport const a = b;\n', "src/runs/b.ts": "export const b = 1;\n" }],
    [
      "core-imports-only-host-contract",
      { "src/core/a.ts": 'import { b } from "../config/b";\nexport const a = b;\n', "src/config/b.ts": "export const b = 1;\n" },
    ],
    [
      "host-contract-imports-nothing",
      { "src/host-contract/a.ts": 'import { b } from "../core/b";\nexport const a = b;\n', "src/core/b.ts": "export const b = 1;\n" },
    ],
    [
      "adapters-never-import-plugin-or-gateway",
      { "src/intake/a.ts": 'import { b } from "../plugin/b";\nexport const a = b;\n', "src/plugin/b.ts": "export const b = 1;\n" },
    ],
    [
      "plugin-never-imports-gateway",
      { "src/plugin/a.ts": 'import { b } from "../gateway/b";\nexport const a = b;\n', "src/gateway/b.ts": "export const b = 1;\n" },
    ],
    [
      "gateway-knows-only-host-contract-and-entry",
      { "src/gateway/a.ts": 'import { b } from "../runs/b";\nexport const a = b;\n', "src/runs/b.ts": "export const b = 1;\n" },
    ],
    [
      "core-never-imports-host-adapters",
      { "src/runs/a.ts": 'import { b } from "../hosts/openclaw/b";\nexport const a = b;\n', "src/hosts/openclaw/b.ts": "export const b = 1;\n" },
    ],
    [
      "host-adapters-know-only-host-contract-and-entry",
      { "src/hosts/openclaw/a.ts": 'import { b } from "../../runs/b";\nexport const a = b;\n', "src/runs/b.ts": "export const b = 1;\n" },
    ],
    [
      "intake-speaks-node-http-only-in-its-io-port",
      { "src/intake/a.ts": 'import type { IncomingMessage } from "node:http";\nexport type A = IncomingMessage;\n' },
    ],
    [
      "no-circular",
      {
        "src/runs/a.ts": 'import { b } from "./b";\nexport const a = 1;\nexport const c = b;\n',
        "src/runs/b.ts": 'import { a } from "./a";\nexport const b = a;\n',
      },
    ],
    [
      "no-folder-cycle",
      {
        "src/intake/a.ts": 'import { b } from "../store/b";\nexport const a = b;\n',
        "src/store/b.ts": 'import { c } from "../intake/c";\nexport const b = c;\n',
        "src/intake/c.ts": "export const c = 1;\n",
      },
    ],
  ];

  it.each(cases)("an import that breaks %s fails with that rule's name", (rule, files) => {
    const dir = tree(files);
    try {
      const r = depcruise(dir);
      expect(r.status).not.toBe(0);
      expect(r.out).toContain(`error ${rule}:`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
