/**
 * The hook token is read where it is used: activation (which also runs for CLI
 * commands) reads no secret, and the runs service reads it when the gateway
 * starts serving hooks — a missing variable fails that start with a ConfigError
 * naming hooks.token, never a value.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { routeHost } from "../helpers/route-host";
import { activate } from "../../src/plugin/index";
import { ConfigError } from "../../src/core/errors";
import { createFakeHost } from "../helpers/fake-host";

const VAR = "INBOUND_WEBHOOKS_TEST_SECRET_AT_START";
const TOKEN = "token-read-at-start-0123456789";

describe("the hook token is read when the services start, not at activation", () => {
  let stateDir: string;
  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), "iw-secrets-"));
    delete process.env[VAR];
  });
  let started: ReturnType<typeof createFakeHost> | undefined;
  afterEach(async () => {
    delete process.env[VAR];
    await started?.stopServices();
    started = undefined;
    rmSync(stateDir, { recursive: true, force: true });
  });

  const host = () => createFakeHost({ config: { hooks: { enabled: true, token: { env: VAR } } }, stateDir, configDir: stateDir });

  it("activation succeeds and registers the route, the service and the CLI while the variable is unset", () => {
    const h = host();
    expect(() => activate(h.api)).not.toThrow();
    expect(h.routes.map((r) => r.prefix)).toEqual(["/hooks"]);
    expect(h.services.map((s) => s.id)).toEqual(["inbound-webhooks.lifecycle", "inbound-webhooks.runs"]);
    expect(h.clis).toHaveLength(1);
  });

  it("starting the services fails with a ConfigError naming hooks.token and the variable", async () => {
    const h = (started = host());
    activate(h.api);
    await expect(h.startServices()).rejects.toThrow(new ConfigError(`hooks.token refers to environment variable ${VAR}, which is not set or empty`));
  });

  it("with the variable set at start, requests authenticate with its value", async () => {
    const h = host();
    activate(h.api);
    process.env[VAR] = ` ${TOKEN} `;
    await h.startServices();
    const app = routeHost(h.routes);
    const ok = await request(app)
      .post("/hooks/wake")
      .set({ Authorization: `Bearer ${TOKEN}` })
      .send({ text: "hi" });
    expect(ok.status).toBe(200);
    const wrong = await request(app).post("/hooks/wake").set({ Authorization: "Bearer not-the-token-0123456789" }).send({ text: "hi" });
    expect(wrong.status).toBe(401);
    await h.stopServices();
  });
});
