/**
 * Regression: every Deliveries tab held a live feed of its own, and a browser keeps
 * at most 6 connections to one host (HTTP/1.1), so with six Deliveries tabs open a
 * seventh tab — any page of the gateway, the login form and Log out included —
 * never loaded. One feed now serves all the browser's tabs: the tab that holds a Web
 * Lock opens it and relays its events to the others over a BroadcastChannel; each tab
 * applies its own filters, and when that tab closes another one takes over.
 * Checked in headless Chromium.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { delivery } from "../../helpers/fake-inspector";
import { until } from "../../helpers/until";
import { OPERATOR_TOKEN, uiApp } from "../../helpers/ui-app";
import { launchChromium, logIn, newContext } from "./dashboard-browser";
import { serveFakeInspectorDashboard } from "./fake-inspector-dashboard";

const TABS = 9;

const serve = () => serveFakeInspectorDashboard([delivery({ id: "d-0" })]);

describe("many dashboard tabs in one browser, in headless Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let base: string;
  let ui: ReturnType<typeof uiApp>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    ({ ui, base, close } = await serve());
    context = await newContext(browser);
  });
  afterEach(async () => {
    await context.close();
    await close();
  });

  const row = (page: Page, id: string) => page.locator(`#delivery-rows tr[data-id="${id}"]`);

  it(`${TABS} Deliveries tabs all load, share one feed, and each shows the new deliveries its filters let through, also after the tab holding the feed closes`, async () => {
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

    // The tab holding the feed closes: another one takes it over, and new deliveries reach the tabs again.
    await first.close();
    let n = 0;
    await until(
      async () => {
        ui.inspector.emit(delivery({ id: `d-crm-after-${++n}`, hook: "crm" }));
        return (await row(last, `d-crm-after-${n}`).count()) === 1 || (await row(last, `d-crm-after-${n - 1}`).count()) === 1;
      },
      "a delivery after the takeover to reach the last tab",
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    await row(tabs[1]!, `d-crm-after-${n}`).waitFor();
    await until(() => ui.dashboard.liveFeeds().open === 1 && ui.inspector.listeners() === 1, "one feed again");
  }, 60_000);

  it("logged out and in again, a new tab makes the shared feed, waiting to try again, connect at once", async () => {
    const holder = await context.newPage();
    let refused = 0;
    holder.on("response", (r) => void (r.url().includes("/ui/api/events") && r.status() === 401 && refused++));
    await logIn(holder, base, OPERATOR_TOKEN);
    await until(() => ui.dashboard.liveFeeds().open === 1, "the feed to open");
    const other = await context.newPage();
    await other.goto(`${base}/ui/mappings`);
    await Promise.all([other.waitForURL(`${base}/ui/login`), other.getByRole("button", { name: "Log out" }).click()]);
    ui.inspector.emit(delivery({ id: "d-after-logout" }));
    // Refused (401) again and again, the stream waits longer each time: 1 s, 2 s, 4 s … (the page says the session ended).
    await holder.locator("#live-status", { hasText: "session has ended" }).waitFor({ timeout: 15_000 });
    await until(() => refused >= 3, "the third refusal (the stream now waits 4 s)", { timeoutMs: 15_000 });
    await logIn(other, base, OPERATOR_TOKEN);
    await until(() => ui.dashboard.liveFeeds().open === 1, "the feed to open again at once", { timeoutMs: 2000 });
    ui.inspector.emit(delivery({ id: "d-logged-in-again" }));
    await row(other, "d-logged-in-again").waitFor({ timeout: 2000 });
  }, 60_000);
});
