/**
 * A key that cannot be recorded because the database is full: the request is
 * refused with 503 storage_unavailable (not a 500), its handler never runs, the
 * log names SQLITE_FULL, and the same request succeeds once there is room again.
 * The database is really full: `PRAGMA max_page_count` caps the file.
 */
import { createIdempotencyGuard } from "../../../src/intake/idempotency/idempotency-guard";
import { HookError } from "../../../src/core/errors";
import type { HookResponse } from "../../../src/core/ports";
import { useTempDatabase } from "../../helpers/temp-database";

describe("idempotency guard on a full database", () => {
  const t = useTempDatabase("idempotency");

  it("refuses a request whose key cannot be recorded with 503 storage_unavailable and Retry-After, without running it; it works again when there is room", async () => {
    const guard = createIdempotencyGuard({ ttlSeconds: 60, database: t.database, logger: t.log.logger });
    const pages = t.database.db.pragmaValue("page_count") as number;
    t.database.db.pragma(`max_page_count = ${pages}`);
    const handler = jest.fn(async (): Promise<HookResponse> => ({ status: 204 }));
    let refused: unknown;
    let n = 0;
    for (; n < 10_000 && refused === undefined; n++) {
      refused = await guard.handle({ scope: "/hooks/agent", key: `key-${n}-${"k".repeat(200)}`, bodyHash: "h" }, handler).then(
        () => undefined,
        (e: unknown) => e,
      );
    }
    expect(refused).toBeInstanceOf(HookError);
    expect(refused).toMatchObject({ status: 503, code: "storage_unavailable", headers: { "Retry-After": "30" } });
    expect(handler).toHaveBeenCalledTimes(n - 1);
    expect(t.log.lines.find((l) => l.message === "idempotency key not recorded; request refused")?.meta).toMatchObject({
      code: "storage_unavailable",
      cause: "SQLITE_FULL",
    });

    t.database.db.pragma(`max_page_count = ${pages * 100}`);
    const again = await guard.handle({ scope: "/hooks/agent", key: `key-${n - 1}-${"k".repeat(200)}`, bodyHash: "h" }, handler);
    expect(again).toEqual({ status: 204 });
    expect(handler).toHaveBeenCalledTimes(n);
  });
});
