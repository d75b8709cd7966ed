/**
 * How `gateway webhooks deliveries|runs` print: `deliveries list` was ~180 columns wide,
 * `show` printed a JSON body as one line, a run's summary began with the wrapper's
 * 400-character notice, and every value a sender chose went to the terminal raw.
 */
import type { DeliveryDetail, DeliverySummary, RunSummary } from "../../src/core/inspection";
import { FOLDED_UNTRUSTED_NOTICE, UNTRUSTED_NOTICE } from "../../src/host-contract/untrusted-notice";
import { age, deliveryTable, deliveryText, runText } from "../../src/cli/ledger-text";

const NOW = Date.parse("2026-11-25T12:00:00.000Z");
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

function summary(over: Partial<DeliverySummary> = {}): DeliverySummary {
  return {
    id: "01a213b4-f553-7a9f-987d-c870c7bed5dd",
    receivedAt: "2026-11-25T11:59:30.000Z",
    method: "POST",
    url: "/hooks/github",
    hook: "github",
    mappingId: "github-push",
    client: "127.0.0.1",
    status: 202,
    latencyMs: 12,
    runIds: ["01a213b4-f553-7a9f-987d-c870c7bed5de"],
    ...over,
  };
}

test("deliveries list fits 100 columns with the longest code, a long hook name and a fan-out; --wide shows every column", () => {
  const rows = [
    summary({ code: "idempotency_key_reused", status: 422, runIds: [] }),
    summary({ hook: "a-very-long-hook-name-from-a-sender/with/segments", runIds: Array.from({ length: 100 }, (_, i) => `r${i}`) }),
    summary({ receivedAt: "2026-11-01T00:00:00.000Z", code: "unauthorized", status: 401, hook: undefined, runIds: [] }),
  ];
  const narrow = deliveryTable(rows, { wide: false, now: NOW }).trimEnd().split("\n");
  expect(narrow[0]).toMatch(/^ID\s+AGE\s+STATUS\s+CODE\s+HOOK\s+RUNS$/);
  for (const line of narrow) expect(line.length).toBeLessThanOrEqual(100);
  expect(narrow[2]).toContain("a-very-long-hook-name-fro…");
  expect(narrow[2]).toMatch(/ 100$/);
  expect(narrow[3]).toMatch(/^\S+\s+24d\s+401\s+unauthorized\s+-\s+-$/);

  const wide = deliveryTable(rows, { wide: true, now: NOW }).split("\n");
  expect(wide[0]).toMatch(/^RECEIVED\s+ID\s+METHOD\s+HOOK\s+EVENT\s+STATUS\s+BADGES\s+CODE\s+MAPPING\s+RUN\s+MS\s+REPLAY OF$/);
  expect(wide[2]).toContain("a-very-long-hook-name-from-a-sender/with/segments");
});

test("a hook name with escape sequences is one escaped cell in both layouts", () => {
  const rows = [summary({ hook: "\u001b]0;title\u0007\u001b[2J\nfake row" })];
  for (const wide of [false, true]) {
    const out = deliveryTable(rows, { wide, now: NOW });
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out.trimEnd().split("\n")).toHaveLength(2);
    expect(out).toContain("\\x1b]0;title");
  }
});

test("age is the largest whole unit", () => {
  expect([age("2026-11-25T11:59:58Z", NOW), age("2026-11-25T11:55:00Z", NOW), age("2026-11-25T09:00:00Z", NOW), age("2026-11-22T12:00:00Z", NOW)]).toEqual([
    "2s",
    "5m",
    "3h",
    "3d",
  ]);
});

test("deliveries show pretty-prints a JSON body and the answer, keeps other bodies as sent, and escapes controls in headers and body", () => {
  const detail: DeliveryDetail = {
    ...summary(),
    headers: { "x-note": "a\u009b31m", "content-type": "application/json" },
    body: '{"text":"hi \\u001b[2J","n":[1,2]}',
    response: { ok: true, runId: "r1" },
  };
  const out = deliveryText(detail);
  expect(out).not.toMatch(RAW_CONTROL);
  expect(out).toContain("  x-note: a\\x9b31m\n");
  expect(out).toContain(["Body:", "  {", '    "text": "hi \\u001b[2J",', '    "n": [', "      1,", "      2", "    ]", "  }"].join("\n"));
  expect(out).toContain(["Answer:", "  {", '    "ok": true,', '    "runId": "r1"', "  }"].join("\n"));

  const text = deliveryText({ ...detail, body: "not json \u001b]52;c;eA==\u0007\r\nsecond line" });
  expect(text).toContain("Body:\n  not json \\x1b]52;c;eA==\\x07\\x0d\n  second line\n");
});

test("runs show folds the wrapper's notice to one line; the summary is otherwise whole", () => {
  const run: RunSummary = {
    id: "r1",
    status: "succeeded",
    name: "CI",
    sessionKey: "hook:ci",
    createdAt: "2026-11-25T11:00:00Z",
    summary: `${UNTRUSTED_NOTICE}\n<<<EXTERNAL_UNTRUSTED_CONTENT id="ab12cd34">>>\nSource: webhook "agent"\n---\nHook CI: build failed\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="ab12cd34">>>`,
  };
  const out = runText(run);
  expect(out).not.toContain(UNTRUSTED_NOTICE);
  expect(out).toContain(
    `Summary:\n  ${FOLDED_UNTRUSTED_NOTICE}\n  <<<EXTERNAL_UNTRUSTED_CONTENT id="ab12cd34">>>\n  Source: webhook "agent"\n  ---\n  Hook CI: build failed\n`,
  );
});

test("deliveries list shows the event after the hook and the badges as letters after the status (r repeat, R replay, w waited), within 100 columns; --wide as words", () => {
  const rows = [
    summary({ hook: "github", event: "pull_request.opened", status: 200, code: undefined, repeat: true, replayOf: "d-0", waited: true, runIds: [] }),
    summary({ hook: "stripe", event: "invoice.paid", status: 202 }),
  ];
  const narrow = deliveryTable(rows, { wide: false, now: NOW }).trimEnd().split("\n");
  for (const line of narrow) expect(line.length).toBeLessThanOrEqual(100);
  expect(narrow[1]).toMatch(/\s200 rRw\s+-\s+github pull_request.opened\s+-$/);
  expect(narrow[2]).toMatch(/\s202\s+\S+\s+stripe invoice.paid\s/);
  const wide = deliveryTable(rows, { wide: true, now: NOW }).split("\n");
  expect(wide[1]).toMatch(/\sgithub\s+pull_request.opened\s+200\s+repeat,replay,waited\s/);
});
