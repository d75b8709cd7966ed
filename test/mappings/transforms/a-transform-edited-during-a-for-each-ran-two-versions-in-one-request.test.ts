/**
 * Regression: a `forEach` mapping loaded its transform (real path, stat, reload when changed)
 * once per element, so a transform edited while a fan-out was running ran its old version for
 * the first elements and its new version for the rest — one request, two versions (and one
 * path check and stat per element, 100 for a full fan-out). The module is loaded once per
 * request: every element of one request runs the version that was current when it started,
 * and the next request runs the new one (the reload on change still holds).
 *
 * The real loader and a real module file, edited (here: right after the request's first load)
 * the way a deploy would replace it.
 */
import fs from "node:fs";
import path from "node:path";
import { createMappingEngine } from "../../../src/mappings/engine";
import { createTransformLoader, type TransformLoader } from "../../../src/mappings/transforms/transform-loader";
import { captureLogger, fixedClock, hookInput, makeConfig, mapping, tempDir } from "../helpers";

const version = (v: string) => `export default (ctx) => ({ text: "${v} " + ctx.index });\n`;

describe("a transform edited while a forEach request runs", () => {
  let dir: string;
  beforeEach(() => void (dir = tempDir()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("runs one version for every element of the request, and the new one from the next request on", async () => {
    const file = path.join(dir, "t.js");
    fs.writeFileSync(file, version("old"));
    const real = createTransformLoader();
    let loads = 0;
    // The edit lands right after the first load of a request (a deploy replacing the file).
    const loader: TransformLoader = {
      async load(mod) {
        const fn = await real.load(mod);
        if (++loads === 1) fs.writeFileSync(file, version("new, longer"));
        return fn;
      },
    };
    const config = makeConfig({ transformsDir: dir, mappings: [mapping({ id: "t", action: "wake", forEach: "events", transform: { module: "t.js" } })] });
    const engine = createMappingEngine({ config, presets: [], logger: captureLogger(), clock: fixedClock, loader });
    const texts = async () => {
      const r = await engine.resolve(hookInput("x", { events: [1, 2, 3] }));
      if (!r.ok || r.value.kind !== "batch") throw new Error(`unexpected ${r.ok ? r.value.kind : r.error.code}`);
      return r.value.items.map((i) => i.raw?.kind === "wake" && i.raw.text);
    };
    expect(await texts()).toEqual(["old 0", "old 1", "old 2"]);
    expect(loads).toBe(1);
    expect(await texts()).toEqual(["new, longer 0", "new, longer 1", "new, longer 2"]);
  });
});
