/**
 * Paths under /ui that are not valid percent-encoding (regression: `/ui/deliveries/%E0%A4%A`
 * and `/ui/assets/%E0` answered 500 internal_error and logged at error level, for
 * anonymous clients too): 400 invalid_path, logged at debug only. And the favicon
 * every page links (no 404 per page).
 */
import request from "supertest";
import type { HostLogger } from "../../src/host-contract/host-api";
import { OPERATOR_TOKEN, uiApp } from "../helpers/ui-app";

function recording(): { logger: HostLogger; lines: Array<{ level: string; message: string }> } {
  const lines: Array<{ level: string; message: string }> = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return { logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") }, lines };
}

describe("/ui paths that are not valid percent-encoding", () => {
  const cases: Array<[string, string, Record<string, string>]> = [
    ["a delivery id, logged in", "/ui/deliveries/%E0%A4%A", { authorization: `Bearer ${OPERATOR_TOKEN}` }],
    ["an asset name, anonymous", "/ui/assets/%E0", {}],
    ["an asset name, logged in", "/ui/assets/%E0", { authorization: `Bearer ${OPERATOR_TOKEN}` }],
    ["a replay, logged in", "/ui/deliveries/%E0/replay", { authorization: `Bearer ${OPERATOR_TOKEN}` }],
  ];
  it.each(cases)("%s: 400 invalid_path, logged at debug only", async (_name, path, headers) => {
    const log = recording();
    const { app } = uiApp({ logger: log.logger });
    const res = await (path.endsWith("/replay") ? request(app).post(path) : request(app).get(path)).set(headers);
    expect(res.status).toBe(400);
    expect(res.text).toContain('data-code="invalid_path"');
    expect(log.lines.filter((l) => l.level === "error" || l.level === "warn")).toEqual([]);
    expect(log.lines.filter((l) => l.level === "debug").map((l) => l.message)).toEqual(["dashboard request with a path that is not valid percent-encoding"]);
  });

  it("a delivery id, anonymous: the login form (401) comes first, and nothing is logged at error level", async () => {
    const log = recording();
    const res = await request(uiApp({ logger: log.logger }).app).get("/ui/deliveries/%E0%A4%A");
    expect(res.status).toBe(401);
    expect(res.text).toContain("Operator token");
    expect(log.lines.filter((l) => l.level === "error")).toEqual([]);
  });

  it("with the dashboard disabled (no gateway.auth.token) an asset path that is not valid percent-encoding is 400 too", async () => {
    const log = recording();
    const res = await request(uiApp({ logger: log.logger, authToken: null }).app).get("/ui/assets/%E0");
    expect(res.status).toBe(400);
    expect(log.lines.filter((l) => l.level === "error")).toEqual([]);
  });

  it("under /ui/api it answers JSON", async () => {
    const res = await request(uiApp().app).get("/ui/api/events/%E0").set("Authorization", `Bearer ${OPERATOR_TOKEN}`);
    expect([404, 400]).toContain(res.status);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
  });
});

describe("favicon", () => {
  it("every page links /ui/assets/favicon.svg, served as image/svg+xml without a login", async () => {
    const { app } = uiApp();
    const login = await request(app).get("/ui/deliveries");
    expect(login.text).toContain('<link rel="icon" href="/ui/assets/favicon.svg" type="image/svg+xml">');
    const icon = await request(app).get("/ui/assets/favicon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers["content-type"]).toBe("image/svg+xml");
    expect(icon.body.toString()).toContain("<svg");
  });
});
