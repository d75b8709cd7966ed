/**
 * The live feed against clients that stop reading, on the real gateway process
 * (regression: 50 stalled feeds — laptops asleep behind an `ssh -L` tunnel — grew
 * the gateway by 691 MB over 20k requests, because `res.write`'s answer was
 * ignored). 50 feeds that never read while 12,000 deliveries happen: `/api/status`
 * shows every feed capped (skipping its events, each counted) or dropped, and the
 * bytes the gateway holds for them within 50 × MAX_QUEUED_BYTES.
 *
 * It measures the bytes queued for the feeds, not the process's RSS: RSS after the
 * same traffic moved between 8 and 57 MB with the cap (garbage-collector timing; a
 * CI run failed a 40 MB bound) and was 92 MB without it (the feeds share each
 * event's text), too close to tell apart. The queued bytes are 6.4 MB at most with
 * the cap and about 400 MB without it.
 * Requires the built dist.
 */
import fs from "node:fs";
import http from "node:http";
import autocannon from "autocannon";
import { startGateway, type GatewayProcess } from "../../helpers/gateway-process";
import { until } from "../../helpers/until";
import { MAX_QUEUED_BYTES } from "../../../src/inspector/live-feed";
import { GATEWAY_TOKEN, HOOK_TOKEN, hooksConfig } from "../gateway-setup";

jest.setTimeout(240_000);

const FEEDS = 50;
const DELIVERIES = 12_000;
/**
 * A long hook name (recorded and sent in every row): 12,000 events are more than the kernel's
 * socket buffers take on loopback, so without a cap the gateway itself would hold megabytes for
 * each of the 50 feeds.
 */
const PHASE_HOOK = `slow-readers-${"s".repeat(600)}`;

/** `amount` requests to /hooks/<hook> (an unknown hook: 404, recorded in the ledger, sent to every feed). */
async function traffic(gw: GatewayProcess, hook: string): Promise<autocannon.Result> {
  return autocannon({
    url: `${gw.baseUrl}/hooks/${hook}`,
    method: "POST",
    connections: 8,
    amount: DELIVERIES,
    timeout: 20,
    headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json" },
    body: '{"text":"slow reader traffic"}',
  });
}

/** Opens a live feed whose socket is never read; resolves with its status once the headers came. */
function openStalledFeed(gw: GatewayProcess): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${gw.baseUrl}/ui/api/events`, { agent: false, headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } }, (res) => {
      res.socket.pause();
      resolve({ status: res.statusCode!, close: () => req.destroy() });
    });
    req.on("error", reject);
  });
}

/** GET with the given token on a connection of its own; the JSON body. */
function getJson(url: string, token: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve(JSON.parse(text) as Record<string, unknown>));
    });
    req.on("error", reject);
  });
}

/** The newest delivery's hook in the ledger (its read API). */
async function newestHook(gw: GatewayProcess): Promise<string | undefined> {
  const body = (await getJson(`${gw.baseUrl}/hooks/deliveries?limit=1`, HOOK_TOKEN)) as { deliveries: Array<{ hook?: string }> };
  return body.deliveries[0]?.hook;
}

interface LiveFeedStats {
  open: number;
  skipping: number;
  skippedEvents: number;
  dropped: number;
  queuedBytes: number;
}

async function liveFeeds(gw: GatewayProcess): Promise<LiveFeedStats> {
  return ((await getJson(`${gw.baseUrl}/api/status`, GATEWAY_TOKEN)) as { dashboard: { liveFeeds: LiveFeedStats } }).dashboard.liveFeeds;
}

describe("live feed: clients that stop reading (real gateway)", () => {
  let gw: GatewayProcess | undefined;
  afterAll(async () => {
    if (gw) {
      await gw.kill9();
      fs.rmSync(gw.dir, { recursive: true, force: true });
    }
  });

  it(`${FEEDS} feeds that stop reading while ${DELIVERIES} deliveries happen: each feed's backlog is capped, and the gateway holds at most ${FEEDS} × MAX_QUEUED_BYTES for them`, async () => {
    gw = await startGateway({ config: hooksConfig({ hooks: { rateLimit: { enabled: false } } }), startTimeoutMs: 60_000 });

    const feeds = await Promise.all(Array.from({ length: FEEDS }, () => openStalledFeed(gw!)));
    expect(feeds.map((f) => f.status)).toEqual(feeds.map(() => 200));
    const phase = await traffic(gw, PHASE_HOOK);
    expect({ errors: phase.errors, answered: phase["4xx"] }).toEqual({ errors: 0, answered: DELIVERIES });
    await until(async () => (await newestHook(gw!)) === PHASE_HOOK, "the phase's rows to be in the ledger", { timeoutMs: 20_000 });

    const stats = await liveFeeds(gw);
    // What waits for the stalled clients is bounded by the cap, and something does wait (they read nothing).
    expect(stats.queuedBytes).toBeGreaterThan(0);
    expect({ queuedBytes: stats.queuedBytes, withinCap: stats.queuedBytes <= FEEDS * MAX_QUEUED_BYTES }).toEqual({
      queuedBytes: stats.queuedBytes,
      withinCap: true,
    });
    // Every feed is capped — skipping events, announced by a gap event once it reads — or was dropped.
    expect({ cappedOrDropped: stats.skipping + stats.dropped, open: stats.open + stats.dropped }).toEqual({ cappedOrDropped: FEEDS, open: FEEDS });
    expect(stats.skippedEvents).toBeGreaterThan(0);
    for (const f of feeds) f.close();
    await until(async () => (await liveFeeds(gw!)).open === 0, "the feeds to close with their clients");
  });
});
