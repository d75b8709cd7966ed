/**
 * Requests below a plugin's prefix go straight to the plugin (src/gateway/http/plugin-dispatch.ts):
 * what the plugin sees and what the sender gets must be what Express's mount gave.
 * Each case is sent through the gateway's listener and, for comparison, through a plain
 * Express app with the same handler mounted by app.use.
 */
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from "express";
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

type Handler = RequestHandler | express.Router;

/** Several routes in registration order. */
function gatewayOf(routes: Array<[string, Handler]>) {
  return createGatewayApp({ routes: routes.map(([prefix, handler]) => ({ prefix, handler: handler as RequestHandler, pluginId: "p" })), logger, status: () => ({}) });
}

/** Waits until `check` holds (the late next() of a handler runs after the answer). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
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

  describe("regressions from the review of the direct dispatch", () => {
    it("a handler that answers and then calls next() later does not crash the gateway (headers already sent)", async () => {
      let late: Promise<void> | undefined;
      const answersThenPasses: RequestHandler = (_req, res, next) => {
        res.json({ ok: true });
        late = new Promise((resolve) =>
          setTimeout(() => {
            next();
            next(new Error("after the answer"));
            resolve();
          }, 1),
        );
      };
      const a = gateway(answersThenPasses);
      expect((await request(a).post("/hooks/wake").expect(200)).body).toEqual({ ok: true });
      await until(() => late !== undefined);
      await late;
      // Only the first next() counts, and it found the answer sent: nothing written, nothing thrown.
      expect(errors).toEqual([]);
      expect((await request(a).get("/healthz").expect(200)).body).toEqual({ ok: true });
    });

    it("a router that answers and calls next() in the same route does not crash the gateway", async () => {
      const router = express.Router();
      router.get("/x", (_req, res, next) => {
        res.json({ ok: true });
        next();
      });
      const a = gateway(router, "/r");
      expect((await request(a).get("/r/x").expect(200)).body).toEqual({ ok: true });
      expect((await request(a).get("/healthz").expect(200)).body).toEqual({ ok: true });
    });

    it("one plugin's nested prefixes (/a and /a/b) still pass from one to the other as Express does", async () => {
      const passOn: RequestHandler = (_req, _res, next) => next();
      const routes: Array<[string, Handler]> = [
        ["/a", passOn],
        ["/a/b", echo],
      ];
      const res = await request(gatewayOf(routes)).get("/a/b/c").expect(200);
      expect(res.body).toMatchObject({ baseUrl: "/a/b", url: "/c" });
    });

    it("a pattern prefix registered before a literal one keeps taking the requests it matched first", async () => {
      const any: RequestHandler = (_req, res) => void res.json({ by: "pattern" });
      const routes: Array<[string, Handler]> = [
        ["/:any", any],
        ["/hooks", echo],
      ];
      expect((await request(gatewayOf(routes)).post("/hooks/wake").expect(200)).body).toEqual({ by: "pattern" });
    });

    it("a falsy rejection (Promise.reject(0)) is a 500, as in Express, not a 404", async () => {
      const rejectsZero: RequestHandler = () => Promise.reject(0) as unknown as void;
      const res = await request(gateway(rejectsZero)).post("/hooks/wake").expect(500);
      expect(res.body.code).toBe("internal_error");
      expect(errors).toEqual(["unhandled error in a route: Rejected promise"]);
    });

    it("a rejected thenable that is not a native Promise is a 500, not a hanging request", async () => {
      const thenable: RequestHandler = () => ({ then: (_ok: unknown, fail: (e: unknown) => void) => fail(new Error("from a thenable")) }) as unknown as void;
      expect((await request(gateway(thenable)).post("/hooks/wake").expect(500)).body.code).toBe("internal_error");
      expect(errors).toEqual(["unhandled error in a route: from a thenable"]);
    });

    it("an error handler (four parameters) registered as a route is skipped for a request, as Express skips it", async () => {
      const errorHandler: ErrorRequestHandler = (_err, _req, res, _next) => void res.json({ by: "error handler" });
      expect(errorHandler.length).toBe(4);
      const res = await request(gatewayOf([["/hooks", errorHandler as unknown as Handler]])).post("/hooks/wake").expect(404);
      expect(res.body.code).toBe("not_found");
    });
  });
});
