/**
 * Requests below a plugin's prefix go straight to the plugin (src/gateway/http/plugin-dispatch.ts):
 * what the plugin sees and what the sender gets must be what Express's mount gave.
 * Each case is sent through the gateway's listener and, for comparison, through a plain
 * Express app with the same handler mounted by app.use.
 */
import express, { type Request, type RequestHandler, type Response } from "express";
import request from "supertest";
import { createGatewayApp } from "../../../src/gateway/http/create-app";

const errors: string[] = [];
const logger = { debug: () => {}, info: () => {}, warn: () => {}, error: (m: string, meta?: Record<string, unknown>) => void errors.push(`${m}: ${String(meta?.error)}`) };

/** What a handler sees of the request. */
const echo: RequestHandler = (req: Request, res: Response) =>
  void res.json({ url: req.url, baseUrl: req.baseUrl, originalUrl: req.originalUrl, path: req.path, ip: typeof req.ip, query: req.query, params: req.params });

function gateway(handler: RequestHandler | express.Router, prefix = "/hooks", idGen?: () => string) {
  return createGatewayApp({ routes: [{ prefix, handler, pluginId: "p" }], logger, status: () => ({}), ...(idGen ? { idGen } : {}) });
}

function mounted(handler: RequestHandler | express.Router, prefix = "/hooks") {
  const app = express();
  app.set("case sensitive routing", true);
  app.use(prefix, handler);
  return app;
}

beforeEach(() => errors.splice(0));

describe("plugin dispatch", () => {
  it.each(["/hooks/wake", "/hooks", "/hooks/", "/hooks?x=1&y=2", "/hooks/?x=1", "/hooks/a/b%2Fc?q=%20", "/hooks//double"])(
    "hands %s to the plugin exactly as app.use would",
    async (url) => {
      const direct = await request(gateway(echo)).post(url).expect(200);
      const viaExpress = await request(mounted(echo)).post(url).expect(200);
      expect(direct.body).toEqual(viaExpress.body);
      expect(direct.body.baseUrl).toBe("/hooks");
      expect(direct.body.originalUrl).toBe(url);
    },
  );

  it.each(["/hooksX/wake", "/HOOKS/wake", "/Hooks", "/hook", "/other/hooks/wake"])("does not take %s (404 JSON from the app)", async (url) => {
    const res = await request(gateway(echo)).post(url).expect(404);
    expect(res.body).toEqual({ ok: false, code: "not_found", error: "No route matches this path." });
  });

  it("a plugin router behaves as when mounted (its own routes, its own 404 passes on to the gateway's)", async () => {
    const router = express.Router();
    router.post("/wake", (req, res) => void res.json({ url: req.url, baseUrl: req.baseUrl }));
    expect((await request(gateway(router)).post("/hooks/wake").expect(200)).body).toEqual({ url: "/wake", baseUrl: "/hooks" });
    expect((await request(gateway(router)).post("/hooks/nope").expect(404)).body.code).toBe("not_found");
  });

  it("a handler's next(), next('route') and next('router') end in the gateway's JSON 404", async () => {
    for (const arg of [undefined, "route", "router"]) {
      const passOn: RequestHandler = (_req, _res, next) => next(arg);
      const res = await request(gateway(passOn)).post("/hooks/wake").expect(404);
      expect(res.body.code).toBe("not_found");
    }
  });

  it("next(err), a throw and a rejected promise answer 500 internal_error without details, and are logged", async () => {
    const handlers: RequestHandler[] = [
      (_req, _res, next) => next(new Error("secret A")),
      () => {
        throw new Error("secret B");
      },
      async () => {
        throw new Error("secret C");
      },
    ];
    for (const h of handlers) {
      const res = await request(gateway(h)).post("/hooks/wake").expect(500);
      expect(res.body).toEqual({ ok: false, code: "internal_error", error: "Internal error." });
    }
    expect(errors).toEqual(["unhandled error in a route: secret A", "unhandled error in a route: secret B", "unhandled error in a route: secret C"]);
  });

  it("a handler that calls next() twice answers once", async () => {
    const twice: RequestHandler = (_req, _res, next) => {
      next();
      next(new Error("late"));
    };
    const res = await request(gateway(twice)).post("/hooks/wake").expect(404);
    expect(res.body.code).toBe("not_found");
    expect(errors).toEqual([]);
  });

  it("stamps X-Request-Id on a plugin's answer once (the plugin may replace it)", async () => {
    let n = 0;
    const a = gateway(echo, "/hooks", () => `gw-${++n}`);
    expect((await request(a).post("/hooks/wake")).headers["x-request-id"]).toBe("gw-1");
    expect((await request(a).get("/healthz")).headers["x-request-id"]).toBe("gw-2");
    const replacing: RequestHandler = (_req, res) => void res.setHeader("X-Request-Id", "plugin-1").json({});
    expect((await request(gateway(replacing)).post("/hooks/wake")).headers["x-request-id"]).toBe("plugin-1");
  });

  it("a prefix with a character the direct path leaves to Express (%) routes as the mount does", async () => {
    const res = await request(gateway(echo, "/a%41")).post("/a%41/wake").expect(200);
    const viaExpress = await request(mounted(echo, "/a%41")).post("/a%41/wake").expect(200);
    expect(res.body).toEqual(viaExpress.body);
  });
});
