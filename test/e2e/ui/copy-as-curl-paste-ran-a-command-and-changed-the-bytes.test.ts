/**
 * Regression: "Copy as curl" left a TAB, and bytes ≥ 0x80, inside its single quotes.
 * Pasted into an interactive bash without bracketed paste (bash before 5.1, or with it
 * off), a TAB is a keystroke: it completed a file name the body started with, closed the
 * quote, and the rest of the body ran as a command (`; touch <canary>`). A TAB in a
 * header was swallowed by a completion that found nothing, and a latin1 byte of a header
 * arrived as the two bytes of its UTF-8 form (or, in the C locale, as a Meta key): the
 * request sent was not the request stored. Now everything that is not printable ASCII is
 * an ANSI-C escape inside $'…', and a body holding a NUL is piped from its base64.
 *
 * End to end, on the real gateway: a sender's requests are stored; the command is what
 * the dashboard's delivery page shows (what "Copy as curl" copies), in headless
 * Chromium; it is pasted into a real interactive bash on a pseudo-terminal (C locale,
 * history expansion on, bracketed paste off) with HOOK_TOKEN exported; the gateway then
 * holds one more delivery whose body and headers are the stored request's, byte for
 * byte, and no other command ran.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { startGateway, type GatewayProcess } from "../../helpers/gateway-process";
import { pasteIntoBash } from "../../helpers/paste-into-bash";
import { GATEWAY_TOKEN, HOOK_TOKEN, hooksConfig } from "../gateway-setup";
import { launchChromium, logIn, newContext } from "./dashboard-browser";

interface Stored {
  id: string;
  status: number;
  headers: Record<string, string>;
  body?: string;
  bodyBase64?: string;
}

/** Sends raw bytes with raw header values (node writes header strings as latin1), as a sender would. */
function send(gw: GatewayProcess, body: Buffer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${gw.baseUrl}/hooks/paste`, { method: "POST", headers: { authorization: `Bearer ${HOOK_TOKEN}`, ...headers } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The ledger's read API; once more when a kept-alive connection was closed by the gateway while the shell ran (undici's race). */
async function ledger(gw: GatewayProcess, suffix: string, again = true): Promise<Record<string, unknown>> {
  try {
    const res = await fetch(`${gw.baseUrl}/hooks/deliveries${suffix}`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
    return (await res.json()) as Record<string, unknown>;
  } catch (err) {
    if (!again) throw err;
    return ledger(gw, suffix, false);
  }
}

async function newest(gw: GatewayProcess): Promise<Stored | undefined> {
  const list = (await ledger(gw, "?limit=1")).deliveries as Array<{ id: string }>;
  if (list.length === 0) return undefined;
  return (await ledger(gw, `/${encodeURIComponent(list[0].id)}`)).delivery as Stored;
}

/** Waits (bounded) until the newest delivery is not `before`. */
async function nextDelivery(gw: GatewayProcess, before: string | undefined): Promise<Stored> {
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 25))) {
    const d = await newest(gw);
    if (d && d.id !== before) return d;
  }
  throw new Error("no new delivery in the ledger within 10 s");
}

const bytesOf = (d: Stored): Buffer => (d.bodyBase64 !== undefined ? Buffer.from(d.bodyBase64, "base64") : Buffer.from(d.body ?? "", "utf8"));

describe("Copy as curl pasted into an interactive bash without bracketed paste, on the real gateway", () => {
  let gw: GatewayProcess;
  let browser: Browser;
  let page: Page;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "curl-paste-e2e-"));
  const files = path.join(dir, "files");
  let canary = "";

  beforeAll(async () => {
    fs.mkdirSync(files);
    // The one file a TAB after "complete" completes to: the completion closes the quote.
    fs.writeFileSync(path.join(files, "completeme.txt"), "");
    gw = await startGateway({
      config: hooksConfig({ hooks: { mappings: [{ id: "paste", match: { path: "paste" }, action: "wake", textTemplate: "pasted" }] } }),
    });
    browser = await launchChromium();
    page = await (await newContext(browser)).newPage();
    await logIn(page, gw.baseUrl, GATEWAY_TOKEN);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Stores the request, pastes its curl from the delivery page, and answers what the gateway then stored. */
  async function roundTrip(
    name: string,
    body: (canary: string) => Buffer,
    headers: Record<string, string>,
  ): Promise<{ original: Stored; pasted: Stored; command: string; sent: Buffer }> {
    canary = path.join(dir, `canary-${name}`);
    const sent = body(canary);
    const before = (await newest(gw))?.id;
    await send(gw, sent, headers);
    const original = await nextDelivery(gw, before);
    await page.goto(`${gw.baseUrl}/ui/deliveries/${encodeURIComponent(original.id)}`);
    const command = (await page.locator("#curl").textContent()) ?? "";
    const result = pasteIntoBash(command, { cwd: dir, env: { HOOK_TOKEN, SLACK_WEBHOOK_URL: "https://hooks.slack.example/operator-own-secret" } });
    expect({ finished: result.finished, canary: fs.existsSync(canary) }).toEqual({ finished: true, canary: false });
    const pasted = await nextDelivery(gw, original.id);
    return { original, pasted, command, sent };
  }

  it("a TAB in a body that starts with a file name runs nothing, and the body arrives byte for byte (UTF-8 text, a line feed, ! and ')", async () => {
    const body = (canary: string) => Buffer.from(`${files}/complete\t; touch ${canary} #\n!! 'quoted' caf\u00e9 \u65e5\u672c\n`, "utf8");
    const { original, pasted, sent } = await roundTrip("tab", body, { "content-type": "application/json" });
    expect(bytesOf(original).equals(sent)).toBe(true);
    expect(bytesOf(pasted).equals(sent)).toBe(true);
    expect(pasted.status).toBe(original.status);
    expect(pasted.status).not.toBe(401);
  });

  it("control bytes and latin1 in the body, a TAB and a latin1 byte in a header, a sender's [REDACTED] header: all arrive as stored", async () => {
    const body = (canary: string) => Buffer.from(`{"t":"a\tb","c":"\x01\x03\x1a\x1b[201~\x7f\x15touch ${canary}\r\n","l":"caf\xe9 \xff\x85"}`, "latin1");
    const headers = { "content-type": "application/json", "x-note": "caf\u00e9\tfin\u00ff", "slack-webhook-url": "[REDACTED]" };
    const { original, pasted, command, sent } = await roundTrip("controls", body, headers);
    expect(bytesOf(pasted).equals(sent)).toBe(true);
    expect(original.headers["x-note"]).toBe(headers["x-note"]);
    expect(pasted.headers["x-note"]).toBe(headers["x-note"]);
    expect(pasted.headers["slack-webhook-url"]).toBe("[REDACTED]");
    expect(command).not.toContain("SLACK_WEBHOOK_URL");
    expect(pasted.status).toBe(original.status);
  });

  it("a body holding a NUL (piped from its base64) arrives byte for byte", async () => {
    const body = (canary: string) =>
      Buffer.concat([Buffer.from([0x00, 0x09, 0x41, 0xe9, 0x0a, 0x15]), Buffer.from(`touch ${canary}\r`), Buffer.from([0xff, 0x00])]);
    const { pasted, sent } = await roundTrip("nul", body, { "content-type": "application/octet-stream" });
    expect(bytesOf(pasted).equals(sent)).toBe(true);
  });
});
