/**
 * The plugin's services inside OpenClaw: the host contract's `start()` then `ready()`
 * (host API 1.2) of every service, in registration order, from ONE OpenClaw service;
 * `stop()` in reverse order. OpenClaw starts plugin services once its gateway is up,
 * so `ready()` follows the starts at once. A start that fails stops the services
 * already started and fails OpenClaw's service with the reason (config problems
 * name OpenClaw's keys: the plugin writes them so, `PluginApi.configSection`).
 *
 * The run queue runs inside this service's context, so agent runs are started outside
 * any HTTP request's scope, as OpenClaw requires for `subagent.run`.
 */
import fs from "node:fs";
import type { ServiceRegistration } from "../../host-contract/host-api";
import type { OpenClawService } from "./openclaw-api";
import type { ServiceScope } from "./service-scope";
import { mkdirPrivate } from "../../host-contract/private-fs";

export interface ServiceBridgeOptions {
  id: string;
  services: readonly ServiceRegistration[];
  /** Created before the first start (the plugin's own state folder). */
  stateDir: string;
  /** Captured in OpenClaw's start of the service: the context agent runs are started in. */
  scope: ServiceScope;
  /** Called once before the services start (the notice of what OpenClaw lacks). */
  onStart?: () => void;
}

export function bridgeServices(opts: ServiceBridgeOptions): OpenClawService {
  let started: ServiceRegistration[] = [];
  const stopAll = async (): Promise<void> => {
    const running = started.reverse();
    started = [];
    for (const s of running) await s.stop();
  };
  return {
    id: opts.id,
    async start() {
      opts.scope.capture();
      mkdirPrivate(opts.stateDir);
      opts.onStart?.();
      try {
        for (const s of opts.services) {
          await s.start();
          started.push(s);
        }
        for (const s of opts.services) await s.ready?.();
      } catch (e) {
        await stopAll().catch(() => undefined);
        throw e;
      }
    },
    stop: stopAll,
  };
}
