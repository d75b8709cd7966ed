/**
 * Regression (SPEC §14, the bench's stall table): a 191 KB wake body was read, parsed and
 * dispatched in one turn of the event loop, which nothing else (not even /healthz) could
 * interrupt. From SPLIT_AFTER_PARSE_BYTES of body, the accept path now dispatches a turn
 * after the parse; a smaller body is dispatched in the same turn, as before.
 */
import { createAccept, SPLIT_AFTER_PARSE_BYTES } from "../../src/intake/accept";
import type { HookRequest } from "../../src/intake/hook-request";
import type { Respond } from "../../src/intake/validate-and-dispatch";
import { countLoopTurns, type LoopTurns } from "../helpers/loop-turns";
import { resolvedConfig } from "../helpers/resolved-config";

let loop: LoopTurns | undefined;
afterEach(() => loop?.stop());

function request(): HookRequest {
  return {
    requestId: "req-1",
    method: "POST",
    route: { ok: true, route: { kind: "wake" } },
    hook: "wake",
    headers: { "content-type": "application/json" },
    query: {},
    rawUrl: "/hooks/wake",
    url: "/hooks/wake",
    client: "127.0.0.1",
  } as HookRequest;
}

/** The loop turns between the call and the dispatch of a wake whose text makes a body of `bytes`. */
async function turnsToDispatch(bytes: number): Promise<{ turns: number; status: number; text: string }> {
  let turns = -1;
  let text = "";
  const respond: Respond = async (input) => {
    turns = loop!.count();
    text = String(input.payload.text);
    return { response: { status: 200, body: { ok: true, mode: "now" } }, effect: { kind: "wake", runIds: [] } };
  };
  const accept = createAccept({ config: resolvedConfig(), respond });
  // `{"text":""}` is 11 bytes.
  const body = Buffer.from(JSON.stringify({ text: "x".repeat(bytes - 11) }));
  expect(body.length).toBe(bytes);
  loop = countLoopTurns();
  const answer = await accept(request(), { kind: "wake" }, body, { idempotency: false });
  loop.stop();
  return { turns, status: answer.status, text };
}

describe("a large body is dispatched a turn of the event loop after its parse", () => {
  it(`a body of ${SPLIT_AFTER_PARSE_BYTES} bytes: a turn later, its text whole`, async () => {
    const r = await turnsToDispatch(SPLIT_AFTER_PARSE_BYTES);
    expect(r.turns).toBeGreaterThanOrEqual(1);
    expect(r).toMatchObject({ status: 200, text: "x".repeat(SPLIT_AFTER_PARSE_BYTES - 11) });
  });

  it("a body one byte smaller: in the same turn", async () => {
    const r = await turnsToDispatch(SPLIT_AFTER_PARSE_BYTES - 1);
    expect(r).toMatchObject({ turns: 0, status: 200 });
  });
});
