/** The dashboard pages over a fake inspector: filters, one delivery, mappings and dry run, overview, and no inspector at all. */
import request from "supertest";
import { createFakeInspector, delivery } from "../helpers/fake-inspector";
import { NOW, OPERATOR_TOKEN, uiApp } from "../helpers/ui-app";

const bearer = `Bearer ${OPERATOR_TOKEN}`;

describe("/ui pages", () => {
  it("/ui redirects to the deliveries", async () => {
    const res = await request(uiApp().app).get("/ui").set("Authorization", bearer);
    expect([res.status, res.headers.location]).toEqual([303, "/ui/deliveries"]);
  });

  it("deliveries: the filters reach the inspector and the live feed URL (hook and status: the feed's new rows are always within the time window)", async () => {
    const inspector = createFakeInspector({
      deliveries: [
        delivery({ id: "a", hook: "github", status: 404 }),
        delivery({ id: "b", hook: "stripe", status: 404 }),
        delivery({ id: "c", hook: "github", status: 202 }),
      ],
    });
    const res = await request(uiApp({ inspector }).app).get("/ui/deliveries?hook=github&status=4xx&since=1h").set("Authorization", bearer);
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-id="a"');
    expect(res.text).not.toContain('data-id="b"');
    expect(res.text).not.toContain('data-id="c"');
    expect(res.text).toContain('data-live="/ui/api/events?hook=github&amp;status=4xx"');
  });

  it("deliveries: a full page links to the older ones (before=<last id>, filters kept), which are not live", async () => {
    const inspector = createFakeInspector({ deliveries: Array.from({ length: 51 }, (_, i) => delivery({ id: `d${i}` })) });
    const { app } = uiApp({ inspector });
    const first = await request(app).get("/ui/deliveries?hook=github").set("Authorization", bearer);
    expect(first.text).toContain('<a href="/ui/deliveries?hook=github&amp;before=d49">Older deliveries</a>');
    const older = await request(app).get("/ui/deliveries?hook=github&before=d49").set("Authorization", bearer);
    expect(older.text).toContain('data-id="d50"');
    expect(older.text).not.toContain('data-id="d49"');
    expect(older.text).not.toContain("data-live");
    expect(older.text).not.toContain("Older deliveries</a>");
  });

  it("deliveries: a bad status filter is named and left out", async () => {
    const res = await request(uiApp().app).get("/ui/deliveries?status=abc").set("Authorization", bearer);
    expect(res.status).toBe(200);
    expect(res.text).toContain("status must be an HTTP status (404) or a class (4xx).");
  });

  it("deliveries: a bad filter is left out of the live feed's URL too (regression: ?status=abc made the feed answer 400 and the page loop on reconnecting)", async () => {
    const res = await request(uiApp().app).get("/ui/deliveries?status=abc&hook=github").set("Authorization", bearer);
    expect(res.text).toContain('data-live="/ui/api/events?hook=github"');
  });

  it("deliveries: a search reaches the inspector, keeps its words in the form and the next page's link, and is not live", async () => {
    const inspector = createFakeInspector({
      deliveries: [delivery({ id: "a", body: '{"title":"flaky build"}' }), delivery({ id: "b", body: '{"title":"green"}' })],
    });
    const res = await request(uiApp({ inspector }).app).get("/ui/deliveries?search=flaky").set("Authorization", bearer);
    expect(res.text).toContain('data-id="a"');
    expect(res.text).not.toContain('data-id="b"');
    expect(res.text).toContain('name="search" type="search" value="flaky"');
    expect(res.text).not.toContain("data-live");
    expect(res.text).toContain("Search results, newest first (not live).");
  });

  it("deliveries: a search of more than 8 words is named and left out", async () => {
    const res = await request(uiApp().app)
      .get(`/ui/deliveries?search=${"w ".repeat(9)}`)
      .set("Authorization", bearer);
    expect(res.status).toBe(200);
    expect(res.text).toContain("search must be 1 to 8 words of at most 200 characters in all.");
  });

  it("deliveries: the event under the hook, badges for a repeat, a replay and a wait, and the time relative with the exact UTC time on hover", async () => {
    const inspector = createFakeInspector({
      deliveries: [
        delivery({
          id: "a",
          event: "pull_request.opened",
          repeat: true,
          replayOf: "orig-1",
          waited: true,
          receivedAt: new Date(NOW - 5 * 60_000).toISOString(),
        }),
      ],
    });
    const res = await request(uiApp({ inspector }).app).get("/ui/deliveries").set("Authorization", bearer);
    expect(res.text).toContain('<time datetime="2026-11-22T10:25:00.000Z" title="2026-11-22 10:25:00 UTC" data-relative>5 min ago</time>');
    expect(res.text).toContain('<span class="event">pull_request.opened</span>');
    for (const kind of ["repeat", "replay", "waited"]) expect(res.text).toMatch(new RegExp(`<span class="badge badge-${kind}" title="[^"]+">${kind}</span>`));
    expect(res.text).toContain('title="Replay of delivery orig-1."');
  });

  it("one delivery: request line, headers, pretty body, dry run, run timeline", async () => {
    const inspector = createFakeInspector({
      deliveries: [delivery()],
      runs: [
        {
          id: "r-1",
          status: "succeeded",
          name: "github",
          sessionKey: "hook:gh",
          createdAt: "2026-11-22T10:00:00.000Z",
          startedAt: "2026-11-22T10:00:01.000Z",
          finishedAt: "2026-11-22T10:00:05.000Z",
          summary: "Opened.",
        },
      ],
    });
    const res = await request(uiApp({ inspector }).app).get("/ui/deliveries/d-1").set("Authorization", bearer);
    expect(res.status).toBe(200);
    expect(res.text).toContain("<code>POST /hooks/github</code>");
    expect(res.text).toContain('<tr><th scope="row">authorization</th><td><code>[redacted]</code></td></tr>');
    expect(res.text).toContain('<pre id="body" class="text" data-view="pretty">\n{\n  &quot;action&quot;: &quot;opened&quot;\n}</pre>');
    expect(inspector.dryRuns).toEqual([{ hook: "github", body: '{"action":"opened"}', headers: delivery().headers, url: "/hooks/github" }]);
    expect(res.text).toMatch(
      /<li><span class="run-queued">queued<\/span>.*<li><span class="run-running">running<\/span>.*<li><span class="run-succeeded">succeeded<\/span>/s,
    );
    expect(res.text).toContain("Opened.");
  });

  it("one delivery stored as base64 (not UTF-8) says so instead of 'The body was not stored' (regression: the page denied the body it showed)", async () => {
    const inspector = createFakeInspector({ deliveries: [delivery({ body: undefined, bodyBase64: Buffer.from([0xff, 0xfe, 0x41]).toString("base64") })] });
    const res = await request(uiApp({ inspector }).app).get("/ui/deliveries/d-1").set("Authorization", bearer);
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      "The body is not UTF-8 text (it is stored as base64, shown above), and the dry run takes text; replay the delivery to run it as received.",
    );
    expect(res.text).not.toContain("The body was not stored");
    expect(inspector.dryRuns).toEqual([]);
  });

  it("one delivery: an unknown id is 404 not_found", async () => {
    const res = await request(uiApp().app).get("/ui/deliveries/none").set("Authorization", bearer);
    expect(res.status).toBe(404);
    expect(res.text).toContain("(not_found)");
  });

  it("mappings: in order, shadowed ones flagged; the dry-run form hands hook, headers and body to the inspector", async () => {
    const inspector = createFakeInspector({
      mappings: [
        { id: "first", origin: "config", match: ["path github"], action: "agent", verify: "github" },
        { id: "second", origin: "preset:x", match: ["path github"], action: "wake", shadowedBy: "first" },
      ],
    });
    const { app } = uiApp({ inspector });
    const page = await request(app).get("/ui/mappings").set("Authorization", bearer);
    expect(page.text.indexOf("<code>first</code>")).toBeLessThan(page.text.indexOf("<code>second</code>"));
    expect(page.text).toContain("shadowed by <code>first</code>");
    const post = await request(app)
      .post("/ui/mappings/dry-run")
      .set("Authorization", bearer)
      .type("form")
      .send({ hook: "github", headers: "X-GitHub-Event: push\ncontent-type: application/json", body: '{"a":1}' });
    // POST → 303 → GET: the verdict and the form as sent are on the page after the redirect; reloading it runs nothing again.
    expect(post.status).toBe(303);
    expect(post.headers.location).toMatch(/^\/ui\/mappings\?result=[\w-]+#dry-run-result$/);
    for (let reload = 0; reload < 2; reload++) {
      const res = await request(app).get(post.headers.location!).set("Authorization", bearer);
      expect(res.text).toContain('id="dry-run-result"');
      expect(res.text).toContain('<textarea id="dry-body" name="body" rows="6">\n{&quot;a&quot;:1}</textarea>');
    }
    expect(inspector.dryRuns).toEqual([{ hook: "github", body: '{"a":1}', headers: { "x-github-event": "push", "content-type": "application/json" } }]);
  });

  it("mappings: a header line without a name is refused (400), no dry run", async () => {
    const { app, inspector } = uiApp();
    const res = await request(app)
      .post("/ui/mappings/dry-run")
      .set("Authorization", bearer)
      .type("form")
      .send({ hook: "github", headers: "no colon here", body: "{}" });
    expect(res.status).toBe(400);
    expect(res.text).toContain("headers line 1 must be &quot;name: value&quot; with a valid header name.");
    expect(inspector.dryRuns).toEqual([]);
  });

  it("a dry-run paste over 1 MiB is refused with 413 payload_too_large, no dry run", async () => {
    const { app, inspector } = uiApp();
    const res = await request(app)
      .post("/ui/mappings/dry-run")
      .set("Authorization", bearer)
      .type("form")
      .send({ hook: "github", headers: "", body: "x".repeat(1024 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect(res.text).toContain("A dashboard form may be at most 1mb with at most 50 fields. (payload_too_large)");
    expect(inspector.dryRuns).toEqual([]);
  });

  it("overview: queue depth, runs by outcome and the chart series from the last hour of the ledger", async () => {
    const at = (msAgo: number) => new Date(NOW - msAgo).toISOString();
    const inspector = createFakeInspector({
      deliveries: [
        delivery({ id: "1", receivedAt: at(30_000), status: 202 }),
        delivery({ id: "2", receivedAt: at(40_000), status: 500 }),
        delivery({ id: "old", receivedAt: at(2 * 3600_000), status: 202 }),
      ],
      runs: [
        { id: "r1", status: "queued", name: "a", sessionKey: "s", createdAt: at(1000) },
        { id: "r2", status: "failed", name: "a", sessionKey: "s", createdAt: at(1000) },
        { id: "r3", status: "failed", name: "a", sessionKey: "s", createdAt: at(1000) },
      ],
    });
    const res = await request(uiApp({ inspector }).app).get("/ui/overview").set("Authorization", bearer);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<span class="value" id="queued">1</span>');
    expect(res.text).toMatch(/<span class="run-failed">failed<\/span><\/td><td class="num">2<\/td>/);
    expect(res.text).toContain("2 requests: 1 2xx, 0 3xx, 0 4xx, 1 5xx.");
    expect(res.text).toContain('<script src="/ui/assets/uPlot.iife.min.js"></script>');
  });

  it("without an inspector every page says so plainly", async () => {
    const { app } = uiApp({ inspector: null });
    for (const path of ["/ui/deliveries", "/ui/mappings", "/ui/overview"]) {
      const res = await request(app).get(path).set("Authorization", bearer);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.text).toContain("No plugin registered an inspector");
    }
    const api = await request(app).get("/ui/api/events").set("Authorization", bearer);
    expect([api.status, api.body.code]).toEqual([404, "no_inspector"]);
  });

  it("assets are served by name only, without login", async () => {
    const { app } = uiApp();
    const css = await request(app).get("/ui/assets/dashboard.css");
    expect([css.status, css.headers["content-type"]]).toEqual([200, "text/css; charset=utf-8"]);
    expect((await request(app).get("/ui/assets/..%2Fui-router.ts")).status).toBe(404);
    expect((await request(app).get("/ui/assets/ui-router.ts")).status).toBe(404);
  });
});
