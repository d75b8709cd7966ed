/**
 * A flood with no credentials against the real gateway (SPEC §11, §7 "Bounded disk";
 * issue 22 item 3). Regression: 1,300 wrong-token requests in 1.9 s evicted every
 * authenticated delivery (`maxEntries` 1000), and 1,260 wrong-signature posts of
 * 255 KB grew the database by 316 MB in 6 s. Now 20,000 unauthenticated requests with
 * bodies — wrong tokens from many clients, one client hammering until it is throttled
 * (429s), bad Stripe signatures — leave every authenticated delivery in the ledger, keep
 * the refused rows to their share (one counted row for the throttled client) and grow
 * the state dir by less than 10 MB.
 */
import fs from "node:fs";
import path from "node:path";
import { startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { until } from "../helpers/until";
import { GATEWAY_TOKEN, HOOK_TOKEN, hooksConfig, PLUGIN_NOT_BUILT } from "./gateway-setup";

jest.setTimeout(240_000);

/** hooks.ledger.maxEntries's default: refused rows may hold a tenth of it. */
const MAX_ENTRIES = 10_000;
const FLOOD = 20_000;
const STRIPE_SECRET = "whsec_flood0123456789abcdefghijklmnop";
const BODY = JSON.stringify({ type: "invoice.paid", padding: "p".repeat(8 * 1024) });

function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? treeBytes(p) : fs.statSync(p).size;
  }
  return total;
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool(count: number, limit: number, task: (i: number) => Promise<number>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const status = await task(next++);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return statuses;
}

/** One unauthenticated request of the flood: a third each of wrong tokens from many clients, one throttled client, bad signatures. */
async function floodRequest(gw: GatewayProcess, i: number): Promise<number> {
  const kind = i % 3;
  const client = kind === 1 ? "198.51.100.66" : `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const headers: Record<string, string> = { "content-type": "application/json", "x-forwarded-for": client };
  let url = `${gw.baseUrl}/hooks/wake`;
  if (kind === 2) {
    url = `${gw.baseUrl}/hooks/stripe`;
    headers["stripe-signature"] = `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}`;
  } else {
    headers.authorization = `Bearer wrong-token-${i}-0123456789abcdef`;
  }
  const res = await fetch(url, { method: "POST", headers, body: BODY });
  await res.arrayBuffer();
  return res.status;
}

describe("gateway e2e: a flood with no credentials", () => {
  let gw: GatewayProcess | undefined;
  beforeAll(() => {
    if (PLUGIN_NOT_BUILT) throw new Error("dist/ is missing: run `npm run build` before the e2e tests");
  });
  afterEach(async () => {
    await gw?.stop();
  });

  it("regression: 1,300 wrong-token requests evicted every authenticated delivery — 20,000 refused requests with bodies keep all of them and grow the state dir by < 10 MB", async () => {
    gw = await startGateway({
      env: { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET },
      config: hooksConfig({
        gateway: { trustProxy: ["127.0.0.1"] },
        hooks: {
          rateLimit: { max: 100_000, windowSeconds: 60 },
          mappings: [
            {
              id: "stripe",
              match: { path: "stripe" },
              action: "wake",
              textTemplate: "Stripe {{ payload.type }}",
              verify: { scheme: "stripe", secret: { env: "STRIPE_WEBHOOK_SECRET" } },
            },
          ],
        },
      }),
    });
    const g = gw;
    for (let i = 0; i < 300; i++) {
      const res = await fetch(`${g.baseUrl}/hooks/wake`, {
        method: "POST",
        headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ text: `genuine ${i}` }),
      });
      expect(res.status).toBe(200);
    }
    const list = async (query: string): Promise<Array<Record<string, any>>> => {
      const res = await fetch(`${g.baseUrl}/hooks/deliveries?${query}`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { deliveries: Array<Record<string, any>> }).deliveries;
    };
    /** Every page of a listing. */
    const all = async (query: string): Promise<Array<Record<string, any>>> => {
      const out: Array<Record<string, any>> = [];
      for (;;) {
        const page = await list(`${query}&limit=500${out.length ? `&before=${out[out.length - 1]!.id}` : ""}`);
        out.push(...page);
        if (page.length < 500) return out;
      }
    };
    const genuine = async () => (await all("status=200")).map((d) => d.id as string).sort();
    let before: string[] = [];
    await until(async () => (before = await genuine()).length === 300, "the 300 genuine deliveries in the ledger");
    const bytesBefore = treeBytes(g.stateDir);

    const statuses = await pool(FLOOD, 64, (i) => floodRequest(g, i));
    expect([...statuses.keys()].sort()).toEqual([401, 429]);

    // The rows of the flood's last moments are written within the ledger's window; then every genuine delivery is still there.
    const last = await fetch(`${g.baseUrl}/hooks/wake`, {
      method: "POST",
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json" },
      body: '{"text":"after the flood"}',
    });
    expect(last.status).toBe(200);
    await until(async () => (await genuine()).includes((await list("limit=1"))[0]!.id), "the delivery sent after the flood in the ledger");
    expect((await genuine()).filter((id) => before.includes(id))).toEqual(before);

    // Pruned in steps on the turns after each write: the refused rows are back within their share a few turns later.
    let refused: Array<Record<string, any>> = [];
    await until(async () => (refused = await all("status=4xx")).length <= MAX_ENTRIES / 10, "the refused rows within their share");
    expect(refused.length).toBeLessThanOrEqual(MAX_ENTRIES / 10);
    expect(refused.every((d) => d.refused === true)).toBe(true);
    // The throttled client's thousands of 429s are a few counted rows.
    const throttled = refused.filter((d) => d.status === 429);
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled.every((d) => d.client === "198.51.100.66")).toBe(true);
    expect(throttled.reduce((n, d) => n + (d.count ?? 1), 0)).toBeGreaterThan(throttled.length);
    const detail = await fetch(`${g.baseUrl}/hooks/deliveries/${refused[0]!.id}`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
    expect(((await detail.json()) as { delivery: { body?: string; bodyBase64?: string } }).delivery).not.toHaveProperty("body");

    const grownMb = (treeBytes(g.stateDir) - bytesBefore) / 1024 / 1024;
    expect(grownMb).toBeLessThan(10);
    // The operator's own view still answers (the gateway was not worn down).
    const status = await fetch(`${g.baseUrl}/api/status`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(status.status).toBe(200);
  });
});
