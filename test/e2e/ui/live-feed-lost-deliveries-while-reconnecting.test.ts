/**
 * Regression: the live feed ignored `Last-Event-ID`, so the deliveries recorded
 * while a stream was down (the browser reconnecting after a network blip, a
 * gateway restart, a laptop waking) never reached the page; it showed a list with
 * holes and no word of them. A stream that names the last delivery its client saw
 * (the browser's own `Last-Event-ID`, or the page's `?after=` for a new stream) now
 * gets the ones recorded since first, oldest first, at most MAX_RESUMED with a gap
 * event counting the rest. Real gateway process, real ledger, raw SSE client.
 * Requires the built dist.
 */
import fs from "node:fs";
import http from "node:http";
import { MAX_RESUMED } from "../../../src/inspector/feed-resume";
import { startGateway, type GatewayProcess } from "../../helpers/gateway-process";
import { until } from "../../helpers/until";
import { hooksConfig } from "../gateway-setup";
import { HOOK_TOKEN, OPERATOR_TOKEN, sendHook } from "./hooks-gateway";

jest.setTimeout(120_000);

interface Feed {
  status: number;
  body: string;
  /** The `delivery` events so far: their ids, in order. */
  ids(): string[];
  /** The `missed` counts of the `gap` events so far. */
  gaps(): number[];
  close(): void;
}

/** Opens `/ui/api/events<query>` with the operator token and `headers`; resolves once the answer's headers came. */
function openFeed(gw: GatewayProcess, query: string, headers: Record<string, string> = {}): Promise<Feed> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${gw.baseUrl}/ui/api/events${query}`, { agent: false, headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      const blocks = () => text.split("\n\n").filter((b) => b.includes("event: "));
      const feed: Feed = {
        status: res.statusCode!,
        get body() {
          return text;
        },
        ids: () =>
          blocks()
            .filter((b) => b.includes("event: delivery"))
            .map((b) => /^id: (.+)$/m.exec(b)![1]!),
        gaps: () =>
          blocks()
            .filter((b) => b.includes("event: gap"))
            .map((b) => (JSON.parse(/^data: (.+)$/m.exec(b)![1]!) as { missed: number }).missed),
        close: () => req.destroy(),
      };
      resolve(feed);
    });
    req.on("error", reject);
  });
}

/** The ledger's ids, newest first. */
async function ledgerIds(gw: GatewayProcess, limit: number): Promise<string[]> {
  const res = await fetch(`${gw.baseUrl}/hooks/deliveries?limit=${limit}`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
  return ((await res.json()) as { deliveries: Array<{ id: string }> }).deliveries.map((d) => d.id);
}

describe("live feed: deliveries recorded while a stream was down (real gateway)", () => {
  let gw: GatewayProcess | undefined;
  const open: Feed[] = [];
  afterEach(() => {
    for (const f of open.splice(0)) f.close();
  });
  afterAll(async () => {
    if (gw) {
      await gw.kill9();
      fs.rmSync(gw.dir, { recursive: true, force: true });
    }
  });

  beforeAll(async () => {
    // Unknown hooks (404, recorded); no rate limit, so the flood below and the ledger reads all pass.
    gw = await startGateway({ config: hooksConfig({ hooks: { rateLimit: { enabled: false } } }) });
  });

  it("a stream that reconnects with Last-Event-ID gets the deliveries recorded since, oldest first, then the live ones", async () => {
    await sendHook(gw!, "nowhere-1", "{}");
    const [seen] = await ledgerIds(gw!, 1);
    // Recorded while no stream was open.
    await sendHook(gw!, "nowhere-2", "{}");
    await sendHook(gw!, "nowhere-3", "{}");
    const missed = (await ledgerIds(gw!, 2)).reverse();

    const feed = await openFeed(gw!, "", { "last-event-id": seen! });
    open.push(feed);
    expect(feed.status).toBe(200);
    await until(() => feed.ids().length === 2, "the two missed deliveries to be sent again");
    expect(feed.ids()).toEqual(missed);
    await sendHook(gw!, "nowhere-4", "{}");
    const [live] = await ledgerIds(gw!, 1);
    await until(() => feed.ids().length === 3, "the live delivery");
    expect({ ids: feed.ids(), gaps: feed.gaps() }).toEqual({ ids: [...missed, live], gaps: [] });
  });

  it("a new stream opened with ?after= resumes the same way, within its hook filter", async () => {
    await sendHook(gw!, "resume-a", "{}");
    const [seen] = await ledgerIds(gw!, 1);
    await sendHook(gw!, "resume-b", "{}");
    await sendHook(gw!, "resume-a", "{}");
    const [missedA] = await ledgerIds(gw!, 1);

    const feed = await openFeed(gw!, `?hook=resume-a&after=${seen}`);
    open.push(feed);
    await until(() => feed.ids().length === 1, "the missed resume-a delivery");
    // Another look after a keep-alive's worth of nothing new: resume-b was left out by the filter.
    await new Promise((r) => setTimeout(r, 300));
    expect(feed.ids()).toEqual([missedA]);
  });

  it(`more than ${MAX_RESUMED} missed: the newest ${MAX_RESUMED} are sent again, after a gap event counting the rest`, async () => {
    await sendHook(gw!, "flood", "{}");
    const [seen] = await ledgerIds(gw!, 1);
    const extra = 5;
    for (let i = 0; i < MAX_RESUMED + extra; i++) {
      const res = await fetch(`${gw!.baseUrl}/hooks/flood`, {
        method: "POST",
        headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json" },
        body: "{}",
      });
      await res.text();
    }
    await until(async () => (await ledgerIds(gw!, MAX_RESUMED + extra + 1))[MAX_RESUMED + extra] === seen, "every flood delivery to be in the ledger");
    const newest = (await ledgerIds(gw!, MAX_RESUMED)).reverse();

    const feed = await openFeed(gw!, "?hook=flood", { "last-event-id": seen! });
    open.push(feed);
    await until(() => feed.ids().length === MAX_RESUMED, `${MAX_RESUMED} deliveries to be sent again`);
    expect({ gaps: feed.gaps(), ids: feed.ids() }).toEqual({ gaps: [extra], ids: newest });
  });

  it("?after= that is not a delivery id is 400 invalid_filter naming it; a malformed Last-Event-ID is ignored", async () => {
    const bad = await fetch(`${gw!.baseUrl}/ui/api/events?after=not-an-id`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect({ status: bad.status, body: await bad.json() }).toEqual({
      status: 400,
      body: { ok: false, code: "invalid_filter", error: "after must be a delivery id (the id of a row of the ledger)." },
    });
    const feed = await openFeed(gw!, "", { "last-event-id": "not-an-id" });
    open.push(feed);
    expect(feed.status).toBe(200);
    await sendHook(gw!, "after-bad-header", "{}");
    const [live] = await ledgerIds(gw!, 1);
    await until(() => feed.ids().length === 1, "the live delivery");
    expect(feed.ids()).toEqual([live]);
  });
});
