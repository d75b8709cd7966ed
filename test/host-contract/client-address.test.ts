/**
 * The client address hosts hand plugin routes (src/host-contract/client-address.ts): the
 * socket's, or a trusted proxy's X-Forwarded-For (proxy-addr's rule), never an untrusted one.
 */
import http from "node:http";
import request from "supertest";
import { clientAddressResolver } from "../../src/host-contract/client-address";

function reporting(trusted: string[]): http.RequestListener {
  const clientAddress = clientAddressResolver(trusted);
  return (req, res) => {
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ address: clientAddress(req), socket: req.socket.remoteAddress }));
  };
}

const LOOPBACK = ["127.0.0.1", "::1", "::ffff:127.0.0.1"];

describe("clientAddressResolver", () => {
  it("is the socket's address when no X-Forwarded-For is sent, with or without trusted proxies", async () => {
    for (const trusted of [[], LOOPBACK]) {
      const { body } = await request(reporting(trusted)).get("/");
      expect(body.address).toBe(body.socket);
    }
  });

  it("ignores X-Forwarded-For unless the proxy is trusted", async () => {
    const untrusted = await request(reporting([])).get("/").set("X-Forwarded-For", "203.0.113.7");
    expect(untrusted.body.address).toBe(untrusted.body.socket);
    const trusted = await request(reporting(LOOPBACK)).get("/").set("X-Forwarded-For", "203.0.113.7");
    expect(trusted.body.address).toBe("203.0.113.7");
  });

  it("takes the right-most address the trusted proxies did not add, as Express's trust proxy does", async () => {
    const chain = await request(reporting([...LOOPBACK, "10.0.0.0/8"]))
      .get("/")
      .set("X-Forwarded-For", "198.51.100.1, 203.0.113.7, 10.1.2.3");
    expect(chain.body.address).toBe("203.0.113.7");
  });

  it("reads proxy-addr's names (loopback)", async () => {
    const named = await request(reporting(["loopback"]))
      .get("/")
      .set("X-Forwarded-For", "203.0.113.8");
    expect(named.body.address).toBe("203.0.113.8");
  });
});
