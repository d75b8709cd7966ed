/**
 * The curl examples of docs/ledger.md, run as written (bash and curl) against the real gateway
 * process: the listing (`?hook=github&status=4xx`) after a GitHub delivery with a bad signature
 * answers the JSON the doc shows, and the replay of a stored delivery answers with
 * `X-Delivery-Id` naming the new delivery; the bulk replay's preview (the 202 to replay, the 401 not
 * replayable) and its confirmation (one new delivery, `replayOf` the 202) answer what the doc shows. Example values are compared by form: a text with `…`
 * (the doc's shortened id) is any text, a time any ISO-8601 time, `latencyMs` any number.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { REPO_ROOT } from "../helpers/gateway-process";
import { until } from "../helpers/until";
import { HOOK_TOKEN, gatewayPerTest, hooksConfig } from "./gateway-setup";

const DOC = fs.readFileSync(path.join(REPO_ROOT, "docs", "ledger.md"), "utf8");
const SECRET = "ledger-doc-github-secret-0123456789";
const DOC_ID = "6f0c…";

/** Every ```sh block with a curl command, with the ```json block that directly follows it (if any). */
const examples = [...DOC.matchAll(/```sh\n([\s\S]*?)```(?:\s*```json\n([\s\S]*?)```)?/g)]
  .filter((m) => m[1]!.startsWith("curl "))
  .map((m) => ({ command: m[1]!, expected: m[2] === undefined ? undefined : (JSON.parse(m[2]) as unknown) }));

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function asMatcher(doc: unknown, key = ""): unknown {
  if (key === "latencyMs") return expect.any(Number);
  if (typeof doc === "string") return doc.includes("…") ? expect.any(String) : ISO_TIME.test(doc) ? expect.stringMatching(ISO_TIME) : doc;
  if (Array.isArray(doc)) return doc.map((d) => asMatcher(d));
  if (doc !== null && typeof doc === "object") return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, asMatcher(v, k)]));
  return doc;
}

function runBlock(command: string, env: Record<string, string>): string {
  return execFileSync("bash", ["-c", command], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 20_000 });
}

async function postGithub(url: string, body: string, signature: string): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "issues", "x-hub-signature-256": signature },
    body,
  });
  await res.text();
  return res.status;
}

describe("docs/ledger.md: the curl examples, run as written", () => {
  const gateway = gatewayPerTest();

  it("finds the listing (with its answer) and the replay example", () => {
    expect(examples.map((e) => [/\$GW\/hooks\/deliveries\S*/.exec(e.command)![0], e.expected !== undefined])).toEqual([
      ['$GW/hooks/deliveries?hook=github&status=4xx&limit=20"', true],
      [`$GW/hooks/deliveries/${DOC_ID}/replay"`, false],
      ['$GW/hooks/deliveries/replay?hook=github&since=2026-03-01T00:00:00Z"', true],
      ['$GW/hooks/deliveries/replay?hook=github&since=2026-03-01T00:00:00Z&confirm=$CONFIRM"', true],
    ]);
  });

  it("the listing answers what the doc shows; the replay answers with X-Delivery-Id", async () => {
    const gw = await gateway.start({
      config: hooksConfig({
        hooks: {
          mappings: [{ id: "github", match: { path: "github" }, verify: { scheme: "github", secret: SECRET }, messageTemplate: "GitHub {{ payload.action }}" }],
        },
        agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: "off" } } },
      }),
    });
    const env = { GW: gw.baseUrl, HOOK_TOKEN };
    const body = '{"action":"opened"}';
    const good = `sha256=${crypto.createHmac("sha256", SECRET).update(body).digest("hex")}`;
    expect(await postGithub(`${gw.baseUrl}/hooks/github`, body, good)).toBe(202);
    expect(await postGithub(`${gw.baseUrl}/hooks/github`, body, `sha256=${"0".repeat(64)}`)).toBe(401);

    const list = (query: string) =>
      JSON.parse(runBlock(`curl -sS "$GW/hooks/deliveries?${query}" -H "Authorization: Bearer $HOOK_TOKEN"`, env)) as { deliveries: Array<{ id: string }> };
    await until(() => list("hook=github").deliveries.length === 2, "both github deliveries in the ledger");

    const [listing, replay, preview, confirm] = examples;
    expect(JSON.parse(runBlock(listing!.command, env))).toEqual(asMatcher(listing!.expected));

    const accepted = list("hook=github&status=202").deliveries[0]!.id;
    const previewed = JSON.parse(runBlock(preview!.command, env)) as { preview: { ids: string[]; confirm: string } };
    expect(previewed).toEqual(asMatcher(preview!.expected));
    expect(previewed.preview.ids).toEqual([accepted]);
    const confirmed = JSON.parse(runBlock(confirm!.command, { ...env, CONFIRM: previewed.preview.confirm })) as {
      replay: { replayed: Array<{ replayOf: string; deliveryId: string }> };
    };
    expect(confirmed).toEqual(asMatcher(confirm!.expected));
    expect(confirmed.replay.replayed[0]!.replayOf).toBe(accepted);

    const answer = runBlock(replay!.command.replace(DOC_ID, accepted), env);
    expect(answer).toMatch(/^HTTP\/1\.1 202 /);
    const newId = /^x-delivery-id: (\S+)\r?$/im.exec(answer)?.[1];
    expect(newId).toBeDefined();
    await until(() => list("hook=github&status=202").deliveries.some((d) => d.id === newId), "the replay's new delivery in the ledger");
  });
});
