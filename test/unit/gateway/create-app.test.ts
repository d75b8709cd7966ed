import express from "express";
import request from "supertest";
import { createGatewayApp } from "../../../src/gateway/http/create-app";

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function app(authToken?: string) {
  const hooks = express.Router();
  hooks.post("/wake", (req, res) => void res.json({ ok: true, url: req.url, baseUrl: req.baseUrl }));
  hooks.post("/boom", () => {
    throw new Error("secret internal detail");
  });
  return createGatewayApp({ routes: [{ prefix: "/hooks", handler: hooks, pluginId: "p" }], authToken, logger: quiet, status: () => ({ plugins: [] }) });
}

describe("gateway app", () => {
  it("mounts a plugin under its prefix; the plugin sees URLs relative to it", async () => {
    const res = await request(app()).post("/hooks/wake").expect(200);
    expect(res.body).toEqual({ ok: true, url: "/wake", baseUrl: "/hooks" });
  });

  it.each(["/hooksX/wake", "/hooksX", "/HOOKS/wake", "/other"])("does not route %s to the plugin (404 JSON)", async (p) => {
    const res = await request(app()).post(p).expect(404);
    expect(res.body).toEqual({ ok: false, code: "not_found", error: "No route matches this path." });
  });

  it("answers /healthz", async () => {
    expect((await request(app()).get("/healthz").expect(200)).body).toEqual({ ok: true });
  });

  it("guards /api/status with gateway.auth.token", async () => {
    const a = app("operator-token-123");
    expect((await request(a).get("/api/status").expect(401)).body.code).toBe("unauthorized");
    expect((await request(a).get("/api/status").set("authorization", "Bearer wrong").expect(401)).body.code).toBe("unauthorized");
    expect((await request(a).get("/api/status").set("authorization", "Bearer operator-token-123").expect(200)).body).toEqual({ ok: true, plugins: [] });
    expect((await request(app()).get("/api/status").set("authorization", "Bearer x").expect(403)).body.code).toBe("forbidden");
  });

  it("renders an unhandled route error as 500 without details", async () => {
    const res = await request(app()).post("/hooks/boom").expect(500);
    expect(res.body).toEqual({ ok: false, code: "internal_error", error: "Internal error." });
    expect(JSON.stringify(res.body)).not.toContain("secret");
  });
});
