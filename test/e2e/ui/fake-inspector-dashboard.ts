/**
 * The dashboard over a fake inspector holding `deliveries`, served on an ephemeral port,
 * for the browser tests that set the ledger's rows themselves (and may drive the live
 * feed: `ui.inspector.emit`, `ui.dashboard.close`).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { DeliveryDetail } from "../../../src/core/inspection";
import { createFakeInspector } from "../../helpers/fake-inspector";
import { uiApp } from "../../helpers/ui-app";

export interface FakeInspectorDashboard {
  ui: ReturnType<typeof uiApp>;
  base: string;
  close(): Promise<void>;
}

/** `options` go to uiApp (e.g. a clock of the test's own for the sessions, a short keep-alive). */
export async function serveFakeInspectorDashboard(
  deliveries: DeliveryDetail[],
  options: Omit<NonNullable<Parameters<typeof uiApp>[0]>, "inspector"> = {},
): Promise<FakeInspectorDashboard> {
  const ui = uiApp({ now: Date.now, ...options, inspector: createFakeInspector({ deliveries }) });
  const server = http.createServer(ui.app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    ui,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      ui.dashboard.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
