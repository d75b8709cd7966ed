/**
 * `verify`, `match.headers`, `idempotencyKey` on mappings and `hooks.github`
 * (SPEC §6.1, §10) as configuration: accepted shapes, the normalised result, and
 * the start errors naming the key (never a secret's value).
 */
import { resolveConfig } from "../../src/config/resolve";
import { ConfigError } from "../../src/core/errors";
import { createMappingEngine } from "../../src/mappings/engine";
import { captureLogger } from "../mappings/helpers";

const CONFIG_DIR = "/srv/gateway";
const hooks = (h: Record<string, unknown>) => ({ hooks: { enabled: true, token: "hk_3f9a1c7e5b2d4f60a8c1", ...h } });
const github = { match: { path: "github" }, messageTemplate: "{{ payload.action }}", verify: { scheme: "github", secret: { env: "GITHUB_WEBHOOK_SECRET" } } };

function problem(raw: Record<string, unknown>): string {
  try {
    const config = resolveConfig(raw, { configDir: CONFIG_DIR });
    createMappingEngine({ config, presets: [], logger: captureLogger() });
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("verify on a mapping", () => {
  test("the issue's shape is accepted and kept as configured (secrets are not read at activation)", () => {
    const config = resolveConfig(hooks({ mappings: [{ ...github, verify: { ...github.verify, toleranceSeconds: 300 } }] }), { configDir: CONFIG_DIR, env: {} });
    expect(config.mappings[0]!.verify).toEqual({ scheme: "github", secret: { env: "GITHUB_WEBHOOK_SECRET" }, toleranceSeconds: 300 });
  });

  test("a list of secrets (rotation) and the generic scheme's options are accepted", () => {
    const verify = { scheme: "hmac-sha256", header: "x-signature", prefix: "sha256=", encoding: "base64", secret: ["old-secret", { file: "new.secret" }] };
    const config = resolveConfig(hooks({ mappings: [{ ...github, verify }] }), { configDir: CONFIG_DIR });
    expect(config.mappings[0]!.verify).toEqual(verify);
  });

  test("an unknown scheme fails the start naming hooks.mappings[i].verify.scheme", () => {
    const message = problem(hooks({ mappings: [{ messageTemplate: "x" }, { ...github, verify: { scheme: "gitlab", secret: "s" } }] }));
    expect(message).toMatch(
      /^hooks\.mappings\[1\]\.verify\.scheme must be one of: github, standard-webhooks, stripe, slack, shopify, hmac-sha256, token-header/,
    );
  });

  test("hmac-sha256 and token-header need a header", () => {
    expect(problem(hooks({ mappings: [{ ...github, verify: { scheme: "token-header", secret: "s" } }] }))).toBe("hooks.mappings[0].verify.header is required");
    expect(problem(hooks({ mappings: [{ ...github, verify: { scheme: "hmac-sha256", secret: "s" } }] }))).toBe("hooks.mappings[0].verify.header is required");
  });

  test("a missing secret, an empty rotation list and a bad tolerance are refused by key", () => {
    expect(problem(hooks({ mappings: [{ ...github, verify: { scheme: "github" } }] }))).toBe("hooks.mappings[0].verify.secret is required");
    expect(problem(hooks({ mappings: [{ ...github, verify: { scheme: "github", secret: [] } }] }))).toMatch(
      /^hooks\.mappings\[0\]\.verify\.secret must (contain|have) at least 1/,
    );
    expect(problem(hooks({ mappings: [{ ...github, verify: { scheme: "stripe", secret: "s", toleranceSeconds: 0 } }] }))).toBe(
      "hooks.mappings[0].verify.toleranceSeconds must be at least 1",
    );
  });

  test("verify without match.path fails the start", () => {
    expect(problem(hooks({ mappings: [{ messageTemplate: "x", match: { source: "gh" }, verify: { scheme: "github", secret: "s" } }] }))).toBe(
      "hooks.mappings[0].verify needs match.path (signatures are checked per path, before the body is parsed)",
    );
  });

  test("two different verify blocks on one path fail the start naming both keys; the same block twice is fine", () => {
    const other = { ...github, match: { path: "github", headers: { "x-github-event": "push" } }, verify: { scheme: "github", secret: { env: "OTHER" } } };
    expect(problem(hooks({ mappings: [other, github] }))).toMatch(
      /^hooks\.mappings\[0\]\.verify and hooks\.mappings\[1\]\.verify verify the same path "github" differently/,
    );
    const config = resolveConfig(hooks({ mappings: [{ ...other, verify: github.verify }, github] }), { configDir: CONFIG_DIR });
    const engine = createMappingEngine({ config, presets: [], logger: captureLogger() });
    expect(engine.verifications()).toEqual([
      { path: "github", key: "hooks.mappings[0].verify", secretKey: "hooks.mappings[0].verify.secret", config: github.verify },
    ]);
  });
});

describe("match.headers and idempotencyKey", () => {
  test("a single value becomes a list of one", () => {
    const config = resolveConfig(
      hooks({ mappings: [{ match: { path: "gh", headers: { "x-github-event": "push", "x-kind": ["a", "b"] } }, messageTemplate: "x" }] }),
      { configDir: CONFIG_DIR },
    );
    expect(config.mappings[0]!.match).toEqual({ path: "gh", headers: { "x-github-event": ["push"], "x-kind": ["a", "b"] } });
  });

  test("a header name that is not lower case is refused", () => {
    expect(problem(hooks({ mappings: [{ match: { headers: { "X-GitHub-Event": "push" } }, messageTemplate: "x" }] }))).toMatch(
      /^hooks\.mappings\[0\]\.match\.headers/,
    );
  });

  test("an idempotencyKey template is kept; a blank one is refused", () => {
    const config = resolveConfig(hooks({ mappings: [{ match: { path: "stripe" }, messageTemplate: "x", idempotencyKey: "{{ payload.id }}" }] }), {
      configDir: CONFIG_DIR,
    });
    expect(config.mappings[0]!.idempotencyKey).toBe("{{ payload.id }}");
    expect(problem(hooks({ mappings: [{ messageTemplate: "x", idempotencyKey: " " }] }))).toBe("hooks.mappings[0].idempotencyKey must not be blank");
  });
});

describe("hooks.github", () => {
  test("defaults: no extra events, delivered to the last channel", () => {
    const config = resolveConfig(hooks({ github: { secret: { env: "GH" } } }), { configDir: CONFIG_DIR });
    expect(config.github).toEqual({ secret: { env: "GH" }, events: [], deliver: true, channel: "last" });
  });

  test("an unknown key is refused", () => {
    expect(problem(hooks({ github: { secret: "s", event: ["star"] } }))).toMatch(/^hooks\.github\.event /);
  });
});
