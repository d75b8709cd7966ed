import { createMemoryRunStore } from "../helpers/memory-run-store";
import { runRecord } from "./harness";

describe("createMemoryRunStore", () => {
  it("stores, updates and returns copies of runs", () => {
    const store = createMemoryRunStore();
    const run = runRecord({ id: "r1", seq: store.nextSeq() });
    store.insert(run);
    run.status = "failed";
    expect(store.get("r1")?.status).toBe("queued");

    store.update("r1", { status: "running", startedAt: "2025-01-01T00:00:01.000Z" });
    const got = store.get("r1")!;
    expect(got).toEqual({ ...runRecord({ id: "r1", seq: 1 }), status: "running", startedAt: "2025-01-01T00:00:01.000Z" });
    got.status = "failed";
    expect(store.get("r1")?.status).toBe("running");
    expect(store.get("missing")).toBeUndefined();
  });

  it("leaves fields alone when a patch value is undefined", () => {
    const store = createMemoryRunStore();
    store.insert(runRecord({ id: "r1", summary: "kept" }));
    store.update("r1", { summary: undefined, status: "succeeded" });
    expect(store.get("r1")).toMatchObject({ summary: "kept", status: "succeeded" });
  });

  it("lists by status in seq order and counts queued runs", () => {
    const store = createMemoryRunStore();
    store.insert(runRecord({ id: "c", seq: 3 }));
    store.insert(runRecord({ id: "a", seq: 1, status: "running" }));
    store.insert(runRecord({ id: "b", seq: 2 }));
    store.insert(runRecord({ id: "d", seq: 4, status: "succeeded" }));
    expect(store.listByStatus(["queued"]).map((r) => r.id)).toEqual(["b", "c"]);
    expect(store.listByStatus(["queued", "running"]).map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect(store.countQueued()).toBe(2);
    expect(store.nextSeq()).toBe(5);
    expect(store.nextSeq()).toBe(6);
  });

  it("refuses duplicate ids, unknown ids and use after close", () => {
    const store = createMemoryRunStore();
    store.insert(runRecord({ id: "r1" }));
    expect(() => store.insert(runRecord({ id: "r1" }))).toThrow("run r1 already exists");
    expect(() => store.update("nope", { status: "failed" })).toThrow("run nope does not exist");
    store.close();
    expect(() => store.get("r1")).toThrow("run store is closed");
  });
});
