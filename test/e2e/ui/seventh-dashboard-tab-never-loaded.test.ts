/**
 * Regression: every Deliveries tab held a live feed of its own, and a browser keeps
 * at most 6 connections to one host (HTTP/1.1), so with six Deliveries tabs open a
 * seventh tab — any page of the gateway, the login form and Log out included —
 * never loaded. One feed now serves all the browser's tabs: the tab that holds a Web
 * Lock opens it and relays its events to the others over a BroadcastChannel; each tab
 * applies its own filters, and when that tab closes another one takes over.
 * Checked in headless Chromium.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { createFakeInspector, delivery } from "../../helpers/fake-inspector";
import { until } from "../../helpers/until";
import { OPERATOR_TOKEN, uiApp } from "../../gateway/ui/ui-app";
import { launchChromium, logIn, newContext } from "./dashboard-browser";

const TABS = 9;

describe("many dashboard tabs in one browser, in headless Chromium", () => {
  let browser: Browser;
  let server: http.Server;
  let base: string;
  let ui: ReturnType<typeof uiApp>;

  beforeAll(async () => {
    ui = uiApp({ inspector: createFakeInspector({ deliveries: [delivery({ id: "d-0" })] }), now: Date.now });
    server = http.createServer(ui.app);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    ui.dashboard.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const row = (page: Page, id: string) => page.locator(`#delivery-rows tr[data-id="${id}"]`);

  it(`${TABS} Deliveries tabs all load, share one feed, and each shows the new deliveries its filters let through, also after the tab holding the feed closes`, async () => {
    const context = await newContext(browser);
    const first = await context.newPage();
    await logIn(first, base, OPERATOR_TOKEN);
    const tabs: Page[] = [first];
    for (let i = 1; i < TABS; i++) {
      const page = await context.newPage();
      await page.goto(`${base}/ui/deliveries${i === TABS - 1 ? "?hook=crm" : ""}`, { timeout: 10_000 });
      tabs.push(page);
    }
    await until(() => ui.dashboard.liveFeeds().open === 1 && ui.inspector.listeners() === 1, "one feed for all tabs");
    const last = tabs[TABS - 1]!;

    ui.inspector.emit(delivery({ id: "d-gh", hook: "github" }));
    ui.inspector.emit(delivery({ id: "d-crm", hook: "crm" }));
    for (const page of tabs.slice(0, -1)) await row(page, "d-crm").waitFor();
    await row(last, "d-crm").waitFor();
    expect(await row(tabs[1]!, "d-gh").count()).toBe(1);
    expect(await row(last, "d-gh").count()).toBe(0);
    expect(await last.locator("#live-status").innerText()).toBe("Live: 1 new delivery since the page loaded.");

    await first.close();
    await until(() => ui.dashboard.liveFeeds().open === 1 && ui.inspector.listeners() === 1, "another tab to take the feed over");
    ui.inspector.emit(delivery({ id: "d-crm-2", hook: "crm" }));
    await row(last, "d-crm-2").waitFor();
    await row(tabs[1]!, "d-crm-2").waitFor();
    await context.close();
  });
});
