/**
 * Regression (issue 22, item 1): a request to `/hooks/%1B%5D0%3Btitle%07%1B%5B2J`
 * with no credentials was recorded (401) under its percent-decoded name, and
 * `gateway webhooks deliveries list` / `show` printed it raw — a window title set and
 * the screen cleared on the operator's terminal; a header or a body a sender chose did
 * the same. Such a name is now refused at the boundary (404, src/core/hook-name.ts);
 * the CLI escapes whatever a sender chose all the same (a name: test/cli/ledger-text.test.ts) (a raw C0 control in a header is refused by Node's HTTP parser; C1 bytes pass).
 * On the real gateway process and the real CLI: the human output carries
 * every control character as a visible escape, `--json` stays JSON with the same values.
 */
import { runGatewayCli, type GatewayProcess } from "../helpers/gateway-process";
import { freePort } from "../helpers/free-port";
import { until } from "../helpers/until";
import { gatewayPerTest, HOOK_TOKEN, hooksConfig } from "./gateway-setup";

const ESC = "\u001b";
const BEL = "\u0007";
const CSI_C1 = "\u009b";
/** Any C0 control except line feed, DEL, or any C1 control: none may reach the terminal. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe("CLI: control characters a sender chose reach the terminal escaped", () => {
  const gateway = gatewayPerTest();
  let gw: GatewayProcess;

  beforeEach(async () => {
    const port = await freePort();
    gw = await gateway.start({
      port,
      // "ci" has no path rule, so any hook name may be one of its requests: an unknown name is checked for credentials (401), not refused as 404.
      config: hooksConfig({
        gateway: { port },
        hooks: {
          mappings: [
            { id: "crm", match: { path: "crm" }, action: "wake", textTemplate: "{{ payload.text }}" },
            { id: "ci", match: { source: "ci" }, action: "wake", textTemplate: "{{ payload.text }}" },
          ],
        },
      }),
    });
  });

  const cli = (...args: string[]) => runGatewayCli(["webhooks", "deliveries", ...args, "--config", gw.configPath]);

  /** The id of the ledger row with this status, once it is listed (rows are written within a short window after the answer). */
  async function idOf(status: number): Promise<string> {
    let id = "";
    await until(async () => {
      const listed = await cli("list", "--json");
      id = (JSON.parse(listed.stdout) as { deliveries: Array<{ id: string; status: number }> }).deliveries.find((d) => d.status === status)?.id ?? "";
      return id !== "";
    }, `the ${status} to be listed`);
    return id;
  }

  it("a /hooks/%1B%5D0%3Btitle%07%1B%5B2J request is recorded and listed and shown without a raw control character", async () => {
    // The hook name is worked out once at the boundary (src/core/hook-name.ts): one with a control character names no hook (404), so no row carries it decoded.
    const res = await fetch(`${gw.baseUrl}/hooks/%1B%5D0%3Btitle%07%1B%5B2J`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(404);
    const id = await idOf(404);
    for (const args of [["list"], ["list", "--wide"], ["show", id]]) {
      const r = await cli(...args);
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(RAW_CONTROL);
    }
    expect((await cli("show", id)).stdout).toMatch(/^Request:\s+POST \/hooks\/%1B%5D0%3Btitle%07%1B%5B2J$/m);
  });

  it("a header and a body with escape sequences (accepted and refused deliveries) are shown escaped, a JSON body pretty-printed", async () => {
    const send = async (body: string, header: string): Promise<{ status: number; id: string }> => {
      const res = await fetch(`${gw.baseUrl}/hooks/crm`, {
        method: "POST",
        headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", "x-note": header },
        body,
      });
      return { status: res.status, id: await idOf(res.status) };
    };
    const showOf = async (id: string) => {
      const show = await cli("show", id);
      expect(show.code).toBe(0);
      expect(show.stdout).not.toMatch(RAW_CONTROL);
      return show.stdout;
    };
    // A JSON body may hold C1 controls raw (and C0 ones as \u escapes, which parse to raw controls).
    const text = `deploy ${ESC}]52;c;ZXZpbA==${BEL} done ${CSI_C1}2J`;
    const accepted = await send(JSON.stringify({ text }), `a${CSI_C1}31m`);
    expect(accepted.status).toBe(200);
    const shown = await showOf(accepted.id);
    expect(shown).toContain("  x-note: a\\x9b31m");
    expect(shown).toContain(["Body:", "  {", '    "text": "deploy \\u001b]52;c;ZXZpbA==\\u0007 done \\x9b2J"', "  }"].join("\n"));

    // Not JSON: refused (400) and kept as sent, raw escape sequences included.
    const refused = await send(`{"text": "${ESC}]0;title${BEL}${ESC}[2J"`, "plain");
    expect(refused.status).toBe(400);
    expect(await showOf(refused.id)).toContain('Body:\n  {"text": "\\x1b]0;title\\x07\\x1b[2J"');

    const json = await cli("show", accepted.id, "--json");
    const delivery = (JSON.parse(json.stdout) as { delivery: { body: string; headers: Record<string, string> } }).delivery;
    expect(JSON.parse(delivery.body)).toEqual({ text });
    expect(delivery.headers["x-note"]).toBe(`a${CSI_C1}31m`);
    expect(json.stdout).not.toMatch(RAW_CONTROL); // JSON escapes C0 itself; C1 is written as \u009b (the same string)
  });
});
