/**
 * The client of `gateway webhooks deliveries|runs …` and `webhooks test --delivery`: a `--url`
 * that is no http(s) URL is a mistyped flag, not a gateway that is down.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createGatewayClient, GatewayClientError } from "../../src/cli/gateway-client";

describe("createGatewayClient", () => {
  it.each([["notaurl"], ["127.0.0.1:18789/hooks"], ["ftp://127.0.0.1/hooks"]])(
    "--url %s was reported as a gateway that is not reachable (start it with `gateway start`); now named as a wrong --url",
    (url) => {
      let thrown: unknown;
      try {
        createGatewayClient({ baseUrl: url, token: "t".repeat(32) });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(GatewayClientError);
      expect((thrown as Error).message).toBe(
        `--url must be the http:// or https:// URL of the gateway's hooks path, e.g. http://127.0.0.1:18789/hooks (got "${url}")`,
      );
    },
  );

  it("an http URL is used as it is (a trailing slash dropped), with the token as a Bearer credential", async () => {
    let seen: { url?: string; auth?: string } = {};
    const server = http.createServer((req, res) => {
      seen = { url: req.url, auth: req.headers.authorization };
      res.setHeader("content-type", "application/json");
      res.end('{"ok":true,"runs":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const client = createGatewayClient({ baseUrl: `http://127.0.0.1:${port}/hooks/`, token: "t".repeat(32) });
      expect(await client.get("/runs")).toEqual({ ok: true, runs: [] });
      expect(seen).toEqual({ url: "/hooks/runs", auth: `Bearer ${"t".repeat(32)}` });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
