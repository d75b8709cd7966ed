/**
 * Regression: the auth throttle forgot after 10,000 clients — failures from
 * 12,000 source addresses let a throttled client back to 401. Real sockets on
 * the real HTTP stack: every request comes from its own loopback address
 * (127.0.0.0/8 all reaches the server bound to 127.0.0.1).
 */
import http from "node:http";
import { createRouterApp, type RouterApp } from "../../helpers/router-app";
import { serve, type Served } from "../support/raw-http";

jest.setTimeout(180_000);

function wrongTokenPost(port: number, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, localAddress, agent: false, method: "POST", path: "/hooks/wake", headers: { Authorization: "Bearer wrong-token-wrong-token", "Content-Type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end('{"text":"x"}');
  });
}

/** The i-th flood address: 127.1.0.1, 127.1.0.2, … (250 per /24). */
const floodAddress = (i: number) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;

describe("a throttled client stays throttled through a flood of failures from 12,000 other addresses", () => {
  let h: RouterApp;
  let server: Served;
  beforeAll(async () => {
    h = createRouterApp();
    server = await serve(h.app);
  });
  afterAll(async () => {
    await server.close();
    h.close();
  });

  it("the victim's next failure is still 429", async () => {
    const victim = "127.0.0.2";
    const first: number[] = [];
    for (let i = 0; i < 21; i++) first.push(await wrongTokenPost(server.port, victim));
    expect(first).toEqual([...Array(20).fill(401), 429]);

    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < 12_000) {
        const status = await wrongTokenPost(server.port, floodAddress(next++));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(Object.fromEntries(statuses)).toEqual({ 401: 12_000 });

    expect(await wrongTokenPost(server.port, victim)).toBe(429);
  });
});
