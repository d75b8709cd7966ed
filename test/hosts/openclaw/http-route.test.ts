/**
 * The plugin's route as OpenClaw registers it (src/hosts/openclaw/http-route.ts): a prefix route
 * with plugin auth whose handler hands OpenClaw's node:http request and response straight to the
 * plugin's handler (host API 2.0, no Express app), with the client's address by OpenClaw's
 * `gateway.trustedProxies`, and settles once the answer is out.
 */
import http from "node:http";
import request from "supertest";
import type { HttpRouteContext } from "../../../src/host-contract/http-route";
import { writeJson } from "../../../src/host-contract/json-response";
import { openClawRoute } from "../../../src/hosts/openclaw/http-route";

function served(config: Record<string, unknown>) {
  const seen: Array<{ url: string | undefined; context: HttpRouteContext; sameObjects: boolean }> = [];
  const settled: boolean[] = [];
  const route = openClawRoute(
    {
      prefix: "/webhooks",
      handler: (req, res, context) => {
        seen.push({ url: req.url, context, sameObjects: req instanceof http.IncomingMessage && res instanceof http.ServerResponse });
        writeJson(res, 200, { ok: true });
      },
    },
    config,
  );
  const server = http.createServer((req, res) => void Promise.resolve(route.handler(req, res)).then((handled) => settled.push(handled === true)));
  return { route, server, seen, settled };
}

describe("openClawRoute", () => {
  it("is a prefix route with plugin auth, handing the plugin OpenClaw's own request with the URL as sent, and settles true", async () => {
    const { route, server, seen, settled } = served({});
    expect({ path: route.path, match: route.match, auth: route.auth }).toEqual({ path: "/webhooks", match: "prefix", auth: "plugin" });
    const res = await request(server).post("/webhooks/wake?x=1").set("X-Forwarded-For", "203.0.113.7").send({});
    expect(res.status).toBe(200);
    expect(seen).toEqual([{ url: "/webhooks/wake?x=1", context: { clientAddress: expect.stringMatching(/127\.0\.0\.1$/) }, sameObjects: true }]);
    expect(settled).toEqual([true]);
  });

  it("believes X-Forwarded-For only from OpenClaw's gateway.trustedProxies", async () => {
    const { server, seen } = served({ gateway: { trustedProxies: ["127.0.0.1", "::1", "::ffff:127.0.0.1"] } });
    await request(server).post("/webhooks/wake").set("X-Forwarded-For", "203.0.113.7").send({});
    expect(seen[0]!.context.clientAddress).toBe("203.0.113.7");
  });
});
