/**
 * Regression (SPEC §9 amplification): the messages of one request come to at most
 * `hooks.maxRenderedBytes`, but a `forEach` whose transform sets each element's message was
 * checked only once every element was built: a 100-element request whose messages passed the
 * limit at the 5th element still ran 100 transform calls and held 100 messages (100 × what a
 * transform echoes of a 256 KB body: 25 MB) before it was refused. The fan-out stops at the
 * element that takes its messages past the limit, with the same 400 `render_too_large`.
 *
 * The engine with the real loader and a real transform module (fixtures/transforms/item-text.js);
 * the loaded function is wrapped to count its calls.
 */
import { createMappingEngine } from "../../src/mappings/engine";
import { createTransformLoader, type TransformLoader } from "../../src/mappings/transforms/transform-loader";
import { captureLogger, fixedClock, hookInput, makeConfig, mapping } from "./helpers";

const MAX = 4096;

describe("a forEach whose transforms' messages pass hooks.maxRenderedBytes", () => {
  it("is refused with render_too_large at the element that passes it, not after running every transform", async () => {
    const real = createTransformLoader();
    let calls = 0;
    const loader: TransformLoader = {
      async load(mod) {
        const fn = await real.load(mod);
        return (ctx) => {
          calls++;
          return fn(ctx);
        };
      },
    };
    const config = makeConfig({
      maxRenderedBytes: MAX,
      mappings: [mapping({ id: "t", action: "wake", forEach: "events", transform: { module: "item-text.js" } })],
    });
    const engine = createMappingEngine({ config, presets: [], logger: captureLogger(), clock: fixedClock, loader });
    // 1000 bytes per element: the 5th takes the request's messages to 5000 > 4096.
    const events = Array.from({ length: 100 }, () => ({ text: "y".repeat(1000) }));
    const r = await engine.resolve(hookInput("x", { events }));
    expect(r.ok ? r.value.kind : [r.error.status, r.error.toBody()]).toEqual([
      400,
      {
        ok: false,
        code: "render_too_large",
        error: `The templates and messages of this request render to more than ${MAX} bytes (hooks.maxRenderedBytes); nothing was accepted.`,
      },
    ]);
    expect(calls).toBe(5);
  });

  it("within the limit every element is built", async () => {
    const config = makeConfig({
      maxRenderedBytes: MAX,
      mappings: [mapping({ id: "t", action: "wake", forEach: "events", transform: { module: "item-text.js" } })],
    });
    const engine = createMappingEngine({ config, presets: [], logger: captureLogger(), clock: fixedClock });
    const r = await engine.resolve(hookInput("x", { events: Array.from({ length: 4 }, () => ({ text: "y".repeat(1000) })) }));
    expect(r.ok && r.value.kind === "batch" ? r.value.items.length : r).toBe(4);
  });
});
