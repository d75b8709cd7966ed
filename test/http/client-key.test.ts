/**
 * The client key is what the auth throttle and the rate limiter count against:
 * the address Express reports (trust proxy honoured), IPv6 grouped by /56.
 */
import express, { type Request } from "express";
import request from "supertest";
import { clientKey } from "../../src/http/client-key";

function appReporting(trustProxy?: string[]) {
  const app = express();
  if (trustProxy) app.set("trust proxy", trustProxy);
  app.get("/", (req: Request, res) => void res.json({ key: clientKey(req), ip: req.ip }));
  return app;
}

describe("clientKey", () => {
  it("is the socket's address when no X-Forwarded-For is sent, with or without trust proxy", async () => {
    for (const trust of [undefined, ["127.0.0.1", "::1", "::ffff:127.0.0.1"]]) {
      const { body } = await request(appReporting(trust)).get("/");
      expect(body.key).toBe(body.ip.replace(/^::ffff:/, ""));
    }
  });

  it("ignores X-Forwarded-For unless the proxy is trusted", async () => {
    const untrusted = await request(appReporting()).get("/").set("X-Forwarded-For", "203.0.113.7");
    expect(untrusted.body.key).not.toBe("203.0.113.7");
    const trusted = await request(appReporting(["127.0.0.1", "::1", "::ffff:127.0.0.1"])).get("/").set("X-Forwarded-For", "203.0.113.7");
    expect(trusted.body.key).toBe("203.0.113.7");
  });

  it("groups forwarded IPv6 clients by /56 and maps IPv4-mapped addresses to IPv4, the same on a repeat (cached)", async () => {
    const app = appReporting(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);
    for (let i = 0; i < 2; i++) {
      const a = await request(app).get("/").set("X-Forwarded-For", "2001:db8:abcd:12ff:1::1");
      const b = await request(app).get("/").set("X-Forwarded-For", "2001:db8:abcd:1200::9");
      expect(a.body.key).toBe("2001:db8:abcd:1200::/56");
      expect(b.body.key).toBe(a.body.key);
      const mapped = await request(app).get("/").set("X-Forwarded-For", "::ffff:203.0.113.9");
      expect(mapped.body.key).toBe("203.0.113.9");
    }
  });
});
