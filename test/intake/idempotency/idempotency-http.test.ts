/**
 * The idempotency stage (SPEC §7) wired into the pipeline, with the durable
 * guard (src/intake/idempotency/, src/store/idempotency-store.ts) on a temporary
 * database: key headers, scope per hook path, body hash, replay header, and
 * keys freed by failed requests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { createPluginLogger } from "../../../src/logging/logger";
import { openPluginDatabase, type PluginDatabase } from "../../../src/store/database";
import { createIdempotencyGuard } from "../../../src/intake/idempotency/idempotency-guard";
import { runIdempotencyKey } from "../../../src/store/idempotency-store";
import { createFakeHost } from "../../helpers/fake-host";
import { bearer, createRouterApp, type RouterApp } from "../../helpers/router-app";

describe("idempotency in the pipeline", () => {
  let dir: string;
  let db: PluginDatabase;
  let h: RouterApp;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "iw-http-idem-"));
    const logger = createPluginLogger(createFakeHost().api.logger).forModule("idempotency");
    db = openPluginDatabase({ dir, logger });
    h = createRouterApp({ idempotency: createIdempotencyGuard({ ttlSeconds: 3600, database: db, logger }) });
  });
  afterEach(() => {
    h.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const agent = (key: string, body: object, header = "Idempotency-Key") => request(h.app).post("/hooks/agent").set(bearer()).set(header, key).send(body);

  it("a repeat with the same key and body replays the first response with Idempotent-Replayed: true; one run", async () => {
    const first = await agent("evt-1", { message: "hi" });
    expect(first.status).toBe(202);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    const again = await agent("evt-1", { message: "hi" });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(h.dispatcher.agents).toHaveLength(1);
    expect(h.dispatcher.agents[0].opts).toEqual({ idempotencyKey: runIdempotencyKey("/hooks/agent", "evt-1") });
    expect(h.accepted.map((e) => [e.kind, e.runId, e.replayed])).toEqual([
      ["agent", first.body.runId, undefined],
      ["agent", first.body.runId, true],
    ]);
  });

  it("the same key with a different body → 422 idempotency_key_reused", async () => {
    expect((await agent("evt-2", { message: "hi" })).status).toBe(202);
    const res = await agent("evt-2", { message: "something else" });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("idempotency_key_reused");
    expect(h.dispatcher.agents).toHaveLength(1);
  });

  it.each(["webhook-id", "svix-id", "X-GitHub-Delivery"])("%s is an idempotency key too", async (header) => {
    await agent("evt-3", { message: "hi" }, header);
    const again = await agent("evt-3", { message: "hi" }, header);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(h.dispatcher.agents).toHaveLength(1);
  });

  it("the scope is the hook path: the same key on /wake and /agent are two requests", async () => {
    expect((await agent("evt-4", { message: "hi", text: "hi" })).status).toBe(202);
    const wake = await request(h.app).post("/hooks/wake").set(bearer()).set("Idempotency-Key", "evt-4").send({ message: "hi", text: "hi" });
    expect(wake.status).toBe(200);
    expect(wake.headers["idempotent-replayed"]).toBeUndefined();
    expect(h.dispatcher.wakes).toHaveLength(1);
  });

  it("a rejected request does not use up its key: the corrected request is accepted", async () => {
    expect((await agent("evt-5", { message: "" })).status).toBe(400);
    const fixed = await agent("evt-5", { message: "hi" });
    expect(fixed.status).toBe(202);
    expect(fixed.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("a key longer than 255 characters → 400 invalid_payload naming the header", async () => {
    const res = await agent("k".repeat(256), { message: "hi" });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: "idempotency-key", message: "idempotency-key must be 1 to 255 printable ASCII characters without spaces" }]);
  });
});

describe("without an idempotency guard", () => {
  it("keys are ignored and every request is dispatched", async () => {
    const h = createRouterApp();
    try {
      for (let i = 0; i < 2; i++) {
        const res = await request(h.app).post("/hooks/agent").set(bearer()).set("Idempotency-Key", "same").send({ message: "hi" });
        expect(res.status).toBe(202);
      }
      expect(h.dispatcher.agents).toHaveLength(2);
      expect(h.dispatcher.agents[0].opts).toBeUndefined();
    } finally {
      h.close();
    }
  });
});
