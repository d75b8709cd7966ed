/**
 * The dashboard over a fake inspector holding `deliveries`, served on an ephemeral port,
 * for the browser tests that set the ledger's rows themselves (and may drive the live
 * feed: `ui.inspector.emit`, `ui.dashboard.close`).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { DeliveryDetail } from "../../../src/host-contract/inspection";
import { createFakeInspector } from "../../helpers/fake-inspector";
import { uiApp } from "../../gateway/ui/ui-app";

export interface FakeInspectorDashboard {
  ui: ReturnType<typeof uiApp>;
  base: string;
  close(): Promise<void>;
}

export async function serveFakeInspectorDashboard(deliveries: DeliveryDetail[]): Promise<FakeInspectorDashboard> {
  const ui = uiApp({ inspector: createFakeInspector({ deliveries }), now: Date.now });
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
