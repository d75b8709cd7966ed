/**
 * Regression: the auth throttle forgot after 10,000 clients — failures from
 * 12,000 source addresses let a throttled client back to 401. Through the real HTTP
 * stack (a listening server, keep-alive sockets); each request's client is the
 * address a trusted loopback proxy reports in `X-Forwarded-For`. The throttle's
 * clock is injected and stands still, so the 60 s window cannot run out however
 * long the flood takes on a loaded machine (the test used to race the wall clock).
 *
 * The throttle's tables are injected at 100 clients each, so a flood of 300 addresses
 * overflows them as 12,000 overflow the default 10,000 (12,000 real requests took
 * 15–50 s); the defaults against 12,000 clients are tested on the throttle itself
 * (test/host-contract/auth-throttle.test.ts). A client still counting when the flood
 * came is dropped, which shows the flood did overflow the tables.
 */
import http from "node:http";
import { createRouterApp, type RouterApp } from "../../helpers/router-app";
import { serve, type Served } from "../support/raw-http";

/** Clients the throttle tracks in each table (counting, throttled): the default is 10,000. */
const TABLE = 100;
/** Three times the table, as 12,000 is more than the default 10,000. */
const FLOOD = 3 * TABLE;

function wrongTokenPost(port: number, agent: http.Agent, client: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        agent,
        method: "POST",
        path: "/hooks/wake",
        headers: { Authorization: "Bearer wrong-token-wrong-token", "Content-Type": "application/json", "X-Forwarded-For": client },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end('{"text":"x"}');
  });
}

/** The i-th flood address: 10.0.0.1, 10.0.0.2, … (250 per /24). */
const floodAddress = (i: number) => `10.${Math.floor(i / 62_500)}.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`;

describe(`a throttled client stays throttled through a flood of failures from ${FLOOD} other addresses`, () => {
  let h: RouterApp;
  let server: Served;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  beforeAll(async () => {
    const now = 1_700_000_000_000;
    h = createRouterApp({ clock: () => now, throttleTables: { maxClients: TABLE, maxThrottledClients: TABLE }, trustProxy: ["loopback"] });
    server = await serve(h.app);
  });
  afterAll(async () => {
    agent.destroy();
    await server.close();
    h.close();
  });

  it("the victim's next failure is still 429", async () => {
    const victim = "192.0.2.1";
    const first: number[] = [];
    for (let i = 0; i < 21; i++) first.push(await wrongTokenPost(server.port, agent, victim));
    expect(first).toEqual([...Array(20).fill(401), 429]);
    // A client one failure short of the limit: the flood pushes it out of the counting table.
    const counting = "192.0.2.2";
    const early: number[] = [];
    for (let i = 0; i < 20; i++) early.push(await wrongTokenPost(server.port, agent, counting));
    expect(early).toEqual(Array(20).fill(401));

    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < FLOOD) {
        const status = await wrongTokenPost(server.port, agent, floodAddress(next++));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(Object.fromEntries(statuses)).toEqual({ 401: FLOOD });

    expect(await wrongTokenPost(server.port, agent, victim)).toBe(429);
    // Still counted, its 21st failure would be 429: the flood overflowed the tables.
    expect(await wrongTokenPost(server.port, agent, counting)).toBe(401);
  });
});
