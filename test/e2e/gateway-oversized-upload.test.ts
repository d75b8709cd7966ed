/**
 * Regression on the real gateway process: 8–55 % of senders of a 10 MB body read
 * ECONNRESET/EPIPE instead of the 413 (58 % with fetch), because the connection
 * was destroyed right after the response while they were still uploading.
 */
import fs from "node:fs";
import { gatewayPerTest, hooksConfig, HOOK_TOKEN } from "./gateway-setup";

jest.setTimeout(180_000);

const body = Buffer.alloc(10 * 1000 * 1000, 0x61);

describe("gateway e2e: a 10 MB upload reads the 413", () => {
  const gateway = gatewayPerTest();

  it("at least 99 of 100 fetch senders read 413 payload_too_large; the gateway's memory does not grow with the uploads", async () => {
    const gw = await gateway.start({ config: hooksConfig({ hooks: { rateLimit: { enabled: false } } }) });
    const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${gw.child.pid}/status`, "utf8"))![1]) / 1024;
    const before = rssMiB();
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 100; i++) {
      let outcome: string;
      try {
        const res = await fetch(`${gw.baseUrl}/hooks/wake`, {
          method: "POST",
          headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json" },
          body,
        });
        outcome = `${res.status} ${((await res.json()) as { code?: string }).code}`;
      } catch (e) {
        outcome = String((e as { cause?: { code?: string } }).cause?.code ?? e);
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    expect(outcomes.get("413 payload_too_large") ?? 0).toBeGreaterThanOrEqual(99);
    // 1 GB went through; nothing of it is kept (the bound leaves room for GC lag, far below the 1 GB).
    expect(rssMiB() - before).toBeLessThan(100);
  });
});
