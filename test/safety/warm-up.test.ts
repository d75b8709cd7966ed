/**
 * The wrapper's warm-up (src/safety/warm-up.ts): it wraps a sample of marker
 * look-alikes in slices, one per turn of the event loop, and stops when told.
 */
import { NEUTRALISED_MARKER, neutraliseMarkers } from "../../src/safety/neutralise";
import type { warmUpWrapper as WarmUpWrapper } from "../../src/safety/warm-up";
import { WARM_UP_SAMPLE } from "../../src/safety/warm-up";

/** A fresh copy of the modules for each test (a finished warm-up is remembered per module), with the wrap they call. */
let warmUpWrapper: typeof WarmUpWrapper;
let wrap: typeof import("../../src/safety/wrap");
beforeEach(() => {
  jest.isolateModules(() => {
    wrap = jest.requireActual("../../src/safety/wrap");
    ({ warmUpWrapper } = jest.requireActual<typeof import("../../src/safety/warm-up")>("../../src/safety/warm-up"));
  });
});

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("warmUpWrapper", () => {
  afterEach(() => jest.restoreAllMocks());

  it("wraps the sample once per turn of the event loop, so a request waits at most one slice", async () => {
    const wraps = jest.spyOn(wrap, "wrapExternalContent");
    const warming = warmUpWrapper({ slices: 4 });
    expect(wraps).toHaveBeenCalledTimes(0);
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      await turn();
      seen.push(wraps.mock.calls.length);
    }
    await warming.done;
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(wraps).toHaveBeenCalledTimes(4);
  });

  it("once one has run to its end, another (a second plugin instance, a reload) runs no slice", async () => {
    const wraps = jest.spyOn(wrap, "wrapExternalContent");
    await warmUpWrapper({ slices: 2 }).done;
    expect(wraps).toHaveBeenCalledTimes(2);
    wraps.mockClear();
    await warmUpWrapper().done;
    for (let i = 0; i < 3; i++) await turn();
    expect(wraps).toHaveBeenCalledTimes(0);
  });

  it("stop() ends it between slices and settles done", async () => {
    const wraps = jest.spyOn(wrap, "wrapExternalContent");
    const warming = warmUpWrapper({ slices: 100 });
    await turn();
    await turn();
    warming.stop();
    warming.stop();
    await warming.done;
    const after = wraps.mock.calls.length;
    for (let i = 0; i < 5; i++) await turn();
    expect(after).toBe(2);
    expect(wraps).toHaveBeenCalledTimes(2);
  });

  it("its sample takes the wrapper's look-alike paths: full-width, partial and id-carrying markers are neutralised, plain text is kept", () => {
    const once = WARM_UP_SAMPLE.length / 3;
    const out = neutraliseMarkers(WARM_UP_SAMPLE.slice(0, once));
    expect(out.split(NEUTRALISED_MARKER).length - 1).toBeGreaterThanOrEqual(4);
    expect(out).toContain("Deploy finished for main");
    expect(out).not.toContain("ＥＸＴＥＲＮＡＬ");
    expect(out).not.toMatch(/<<<END_EXTERNAL/);
  });
});
