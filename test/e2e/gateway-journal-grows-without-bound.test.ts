/**
 * Regression (SPEC §7 "Bounded disk"): the embedded gateway's `journal.jsonl` grew without
 * bound (742 MB after 3,000 agent requests). Through the real gateway process with
 * `gateway.journal.maxBytes` at its minimum (64 KiB), 400 wakes of about 1 KB each (about
 * six times the bound) leave `journal.1.jsonl` and `journal.jsonl`, each within the bound,
 * holding the newest system events whole and in order; a restart on that state appends on.
 */
import fs from "node:fs";
import path from "node:path";
import { readJournal, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { hooksConfig, PLUGIN_NOT_BUILT, postJson } from "./gateway-setup";

jest.setTimeout(120_000);

const MAX_BYTES = 65_536;
const WAKES = 400;
const text = (i: number) => `wake ${i} ${"p".repeat(1000)}`;

describe("gateway e2e: the journal stays bounded", () => {
  let gw: GatewayProcess | undefined;
  beforeAll(() => {
    if (PLUGIN_NOT_BUILT) throw new Error("dist/ is missing: run `npm run build` before the e2e tests");
  });
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
  });

  it("regression: journal.jsonl grew without bound — 400 wakes of 1 KB keep journal.1.jsonl + journal.jsonl within 2 × gateway.journal.maxBytes, the newest events whole and in order", async () => {
    const config = hooksConfig({ gateway: { journal: { maxBytes: MAX_BYTES } }, hooks: { rateLimit: { max: 100_000, windowSeconds: 60 } } });
    gw = await startGateway({ config });
    for (let i = 0; i < WAKES; i++) {
      expect((await postJson(`${gw.baseUrl}/hooks/wake`, { text: text(i), mode: "next-heartbeat" })).status).toBe(200);
    }
    const stateDir = gw.stateDir;
    const journalFiles = () =>
      fs
        .readdirSync(stateDir)
        .filter((f) => f.startsWith("journal"))
        .sort();
    const sizes = () => journalFiles().map((f) => fs.statSync(path.join(stateDir, f)).size);
    expect(journalFiles()).toEqual(["journal.1.jsonl", "journal.jsonl"]);
    for (const size of sizes()) expect(size).toBeLessThanOrEqual(MAX_BYTES);
    // Every line parses (none torn or split); the events kept are the newest ones, contiguous, in order.
    // The wake number of each system event (its text is the wake's, inside the untrusted-content wrapper).
    const events = () =>
      readJournal(stateDir)
        .filter((e) => e.type === "system_event")
        .map((e) => Number(/\nwake (\d+) p/.exec(e.text as string)?.[1]));
    const kept = events();
    expect(kept.length).toBeGreaterThan(50);
    expect(kept.length).toBeLessThan(WAKES);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, k) => WAKES - kept.length + k));

    // A restart on the rotated state appends on, still bounded.
    await gw.stop();
    gw = await startGateway({ config, dir: gw.dir });
    expect((await postJson(`${gw.baseUrl}/hooks/wake`, { text: text(WAKES), mode: "next-heartbeat" })).status).toBe(200);
    expect(events().slice(-2)).toEqual([WAKES - 1, WAKES]);
    for (const size of sizes()) expect(size).toBeLessThanOrEqual(MAX_BYTES);
  });
});
