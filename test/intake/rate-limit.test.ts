import type { RequestListener } from "node:http";
import request from "supertest";
import { hookNameOf } from "../../src/core/hook-name";
import { clientKey } from "../../src/intake/client-key";
import { createRatePolicy, type RateLimitedInfo, type RatePolicyOptions } from "../../src/intake/rate-policy";
import type { MappingConfig, ResolvedHooksConfig } from "../../src/config/types";
import { writeJson } from "../../src/host-contract/json-response";
import { recordingLogger } from "../helpers/temp-dir";
import { routeHost } from "../helpers/route-host";
import { resolvedConfig } from "../helpers/resolved-config";

/** Rate limiting on, 3 requests per minute; everything else the documented defaults. */
function config(overrides: Partial<ResolvedHooksConfig> = {}): ResolvedHooksConfig {
  return resolvedConfig({ rateLimit: { enabled: true, max: 3, windowSeconds: 60 }, ...overrides });
}

const mapping = (m: Partial<MappingConfig> & Pick<MappingConfig, "id">): MappingConfig => ({ action: "agent", ...m });

/** The policy as the core consults it: with the hook's one name and the client key, answering its 429 or going on. */
function app(cfg: ResolvedHooksConfig, opts: RatePolicyOptions = {}): RequestListener {
  const policy = createRatePolicy(cfg, opts);
  return routeHost(
    [
      {
        prefix: cfg.path,
        handler: (req, res, context) => {
          res.setHeader("X-Request-Id", "req-fixed");
          const named = hookNameOf((req.url ?? "").split("?")[0]!.slice(cfg.path.length));
          const verdict = policy?.check(named.ok ? named.name : undefined, clientKey(context.clientAddress));
          if (verdict && !verdict.ok) return writeJson(res, verdict.error.status, verdict.error.toBody(), verdict.error.headers);
          writeJson(res, 200, { ok: true }, verdict?.headers);
        },
      },
    ],
    { trustProxy: ["loopback"] },
  );
}

async function hit(a: RequestListener, path: string, n: number, ip = "203.0.113.7") {
  const out: request.Response[] = [];
  for (let i = 0; i < n; i++) out.push(await request(a).post(path).set("X-Forwarded-For", ip).send({}));
  return out;
}

describe("createRateLimiter", () => {
  it("allows hooks.rateLimit.max requests per client and answers the next with 429 too_many_requests", async () => {
    const a = app(config());
    const res = await hit(a, "/hooks/wake", 4);
    expect(res.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    const limited = res[3]!;
    expect(limited.body).toEqual({
      ok: false,
      code: "too_many_requests",
      error: `Rate limit exceeded: at most 3 requests per 60 s per client (hooks.rateLimit); retry after ${limited.headers["retry-after"]} s.`,
    });
    expect(limited.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(limited.headers["x-request-id"]).toBe("req-fixed");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(60);
  });

  it("sends the standard RateLimit and RateLimit-Policy headers (IETF draft-8) on every counted request", async () => {
    const a = app(config());
    const [first] = await hit(a, "/hooks/agent", 1);
    expect(first!.headers["ratelimit-policy"]).toMatch(/^"hooks"; q=3; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    expect(first!.headers["ratelimit"]).toMatch(/^"hooks"; r=2; t=\d+$/);
    expect(first!.headers["x-ratelimit-limit"]).toBeUndefined();
  });

  it("counts each client separately", async () => {
    const a = app(config());
    await hit(a, "/hooks/wake", 3, "203.0.113.7");
    expect((await hit(a, "/hooks/wake", 1, "203.0.113.7"))[0]!.status).toBe(429);
    expect((await hit(a, "/hooks/wake", 1, "198.51.100.2"))[0]!.status).toBe(200);
  });

  it("groups IPv6 clients by /56 so one host cannot rotate addresses", async () => {
    const a = app(config());
    await hit(a, "/hooks/wake", 3, "2001:db8:0:1::1");
    expect((await hit(a, "/hooks/wake", 1, "2001:db8:0:2::9"))[0]!.status).toBe(429);
    expect((await hit(a, "/hooks/wake", 1, "2001:db8:1:100::1"))[0]!.status).toBe(200);
  });

  it("a mapping with rateLimit matched by path gets its own counter and limit", async () => {
    const a = app(config({ mappings: [mapping({ id: "gh", match: { path: "github" }, rateLimit: { max: 1, windowSeconds: 10 } })] }));
    const gh = await hit(a, "/hooks/github", 2);
    expect(gh.map((r) => r.status)).toEqual([200, 429]);
    expect(gh[1]!.body.error).toMatch(/^Rate limit exceeded: at most 1 requests per 10 s per client on \/hooks\/github; retry after \d+ s\.$/);
    expect(gh[0]!.headers["ratelimit-policy"]).toMatch(/^"mapping:gh"; q=1; w=10;/);
    // The default policy is untouched by the mapping's traffic.
    expect((await hit(a, "/hooks/wake", 3)).map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it("matches the mapping path with trailing slashes and percent-encoding normalised", async () => {
    const a = app(config({ mappings: [mapping({ id: "m", match: { path: "my hook" }, rateLimit: { max: 1, windowSeconds: 10 } })] }));
    expect((await hit(a, "/hooks/my%20hook/", 2)).map((r) => r.status)).toEqual([200, 429]);
  });

  it("the first mapping for a path wins; source-only mappings use the default policy", async () => {
    const a = app(
      config({
        mappings: [
          mapping({ id: "first", match: { path: "p" }, rateLimit: { max: 1, windowSeconds: 10 } }),
          mapping({ id: "second", match: { path: "p" }, rateLimit: { max: 100, windowSeconds: 10 } }),
          mapping({ id: "by-source", match: { source: "crm" }, rateLimit: { max: 100, windowSeconds: 10 } }),
        ],
      }),
    );
    expect((await hit(a, "/hooks/p", 2)).map((r) => r.status)).toEqual([200, 429]);
    const [other] = await hit(a, "/hooks/anything", 1);
    expect(other!.headers["ratelimit-policy"]).toMatch(/^"hooks"; q=3;/);
  });

  it("hooks.rateLimit.enabled false turns the default limit off but keeps per-mapping limits", async () => {
    const a = app(
      config({
        rateLimit: { enabled: false, max: 1, windowSeconds: 60 },
        mappings: [mapping({ id: "gh", match: { path: "github" }, rateLimit: { max: 1, windowSeconds: 10 } })],
      }),
    );
    const wake = await hit(a, "/hooks/wake", 5);
    expect(wake.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(wake[0]!.headers["ratelimit"]).toBeUndefined();
    expect((await hit(a, "/hooks/github", 2)).map((r) => r.status)).toEqual([200, 429]);
  });

  it("with nothing to limit it is a pass-through", async () => {
    const a = app(config({ rateLimit: { enabled: false, max: 1, windowSeconds: 60 } }));
    expect((await hit(a, "/hooks/wake", 3)).map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it("reports each rejection to onLimited and the first of a client's window to the logger, without the client address (issue 35: a warning per refused request had no bound)", async () => {
    const log = recordingLogger("ratelimit");
    const seen: RateLimitedInfo[] = [];
    const a = app(config(), { logger: log.logger, onLimited: (info) => seen.push(info) });
    await hit(a, "/hooks/wake", 5);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ policy: "hooks", limit: 3, windowSeconds: 60 });
    expect(seen[0]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    const warn = log.lines.filter((l) => l.message === "request rate-limited");
    expect(warn).toHaveLength(1);
    expect(JSON.stringify(log.lines)).not.toContain("203.0.113.7");
    log.close();
  });

  it("a window ends after windowSeconds on the injected clock: the client's count starts again", async () => {
    let now = 1_000_000;
    const policy = createRatePolicy(config(), { clock: () => now })!;
    const statuses = () => [1, 2, 3, 4].map(() => (policy.check("wake", "203.0.113.7").ok ? 200 : 429));
    expect(statuses()).toEqual([200, 200, 200, 429]);
    now += 59_999;
    expect(policy.check("wake", "203.0.113.7").ok).toBe(false);
    now += 1;
    expect(statuses()).toEqual([200, 200, 200, 429]);
  });
});
