/**
 * Activates the real plugin on the fake host and mounts its route in an express
 * app the way a host does (`app.use(prefix, handler)` with a host 404 after it),
 * so supertest can drive the whole plugin — config, pipeline, mappings, runs —
 * without a gateway process.
 */
import express from "express";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activate, type PluginActivation } from "../../src/plugin/index";
import { createFakeHost, type FakeHost, type FakeHostOptions } from "./fake-host";

export const TEST_TOKEN = "test-hook-token-0123456789abcdef";

export interface PluginApp {
  host: FakeHost;
  /** What `activate` returned: the plugin's events and its view of the host. */
  activation: PluginActivation;
  app: express.Express;
  stateDir: string;
  /** Stops services (graceful; the plugin releases everything in its services' stop) and removes the temp dir. */
  close(): Promise<void>;
}

/** `hooks` is merged over `{ enabled: true, token: TEST_TOKEN }`. */
export async function startPluginApp(opts: FakeHostOptions & { hooks?: Record<string, unknown>; extraConfig?: Record<string, unknown> } = {}): Promise<PluginApp> {
  const stateDir = opts.stateDir ?? mkdtempSync(join(tmpdir(), "iw-plugin-"));
  const config = {
    ...(opts.extraConfig ?? {}),
    hooks: { enabled: true, token: TEST_TOKEN, ...(opts.hooks ?? {}) },
  };
  const host = createFakeHost({ ...opts, config, stateDir, configDir: opts.configDir ?? stateDir });
  const activation = activate(host.api);
  await host.startServices();
  const app = express();
  for (const r of host.routes) app.use(r.prefix, r.handler);
  app.use((_req, res) => void res.status(404).type("text/plain").send("host: no route"));
  let closed = false;
  return {
    host,
    activation,
    app,
    stateDir,
    async close() {
      if (closed) return;
      closed = true;
      await host.stopServices();
      if (!opts.stateDir) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
