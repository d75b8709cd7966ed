/**
 * Activates the real plugin on the fake host and routes to its route the way a host does
 * (test/helpers/route-host.ts: its prefix to its handler, the host's 404 elsewhere), so
 * supertest can drive the whole plugin — config, pipeline, mappings, runs — without a
 * gateway process.
 */
import type { RequestListener } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activate, type PluginActivation } from "../../src/plugin/index";
import { createFakeHost, type FakeHost, type FakeHostOptions } from "./fake-host";
import { routeHost } from "./route-host";

export const TEST_TOKEN = "test-hook-token-0123456789abcdef";

export interface PluginApp {
  host: FakeHost;
  /** What `activate` returned: the plugin's events and its view of the host. */
  activation: PluginActivation;
  /** The host's request listener (what supertest drives). */
  app: RequestListener;
  stateDir: string;
  /** Stops services (graceful; the plugin releases everything in its services' stop) and removes the temp dir. */
  close(): Promise<void>;
}

/** `hooks` is merged over `{ enabled: true, token: TEST_TOKEN }`. */
export async function startPluginApp(
  opts: FakeHostOptions & { hooks?: Record<string, unknown>; extraConfig?: Record<string, unknown>; trustProxy?: readonly string[] } = {},
): Promise<PluginApp> {
  const stateDir = opts.stateDir ?? mkdtempSync(join(tmpdir(), "iw-plugin-"));
  const config = {
    ...(opts.extraConfig ?? {}),
    hooks: { enabled: true, token: TEST_TOKEN, ...(opts.hooks ?? {}) },
  };
  const host = createFakeHost({ ...opts, config, stateDir, configDir: opts.configDir ?? stateDir });
  const activation = activate(host.api);
  if (activation.inspector) host.inspectors.push(activation.inspector);
  await host.startServices();
  const app = routeHost(host.routes, { trustProxy: opts.trustProxy });
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
