/**
 * Regression, in headless Chromium: deliveries recorded while the Deliveries page's
 * live feed was down never reached the page (the feed ignored `Last-Event-ID`, and
 * the page's new stream after the browser gave one up started afresh). Both ways a
 * stream comes back now resume after the last delivery the page saw: the browser's
 * own reconnection (the server ended the stream) and the page's new stream after a
 * refusal (logged out, then in again).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { deliveryId } from "../../../src/intake/ledger/delivery-id";
import { delivery } from "../../helpers/fake-inspector";
import { until } from "../../helpers/until";
import { OPERATOR_TOKEN, uiApp } from "../../helpers/ui-app";
import { launchChromium, logIn, newContext } from "./dashboard-browser";
import { serveFakeInspectorDashboard } from "./fake-inspector-dashboard";

/** Delivery ids as the ledger makes them (UUIDv7), each one a millisecond after the one before. */
let clock = Date.now();
const nextId = () => deliveryId(++clock);

const serve = () => serveFakeInspectorDashboard([delivery({ id: nextId(), hook: "old" })]);

describe("the Deliveries page's live feed after it was down, in headless Chromium", () => {
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

  const row = (page: Page, hook: string) => page.locator("#delivery-rows tr", { hasText: hook });

  it("the browser reconnects a stream the server ended: the deliveries recorded meanwhile appear", async () => {
    const page = await context.newPage();
    await logIn(page, base, OPERATOR_TOKEN);
    await until(() => ui.dashboard.liveFeeds().open === 1, "the feed to open");
    ui.inspector.emit(delivery({ id: nextId(), hook: "seen-live" }));
    await row(page, "seen-live").waitFor();

    ui.dashboard.close();
    await until(() => ui.inspector.listeners() === 0, "the stream to end");
    // Recorded while no stream listens (the browser reconnects after the feed's retry: 3 s).
    ui.inspector.emit(delivery({ id: nextId(), hook: "while-down-1" }));
    ui.inspector.emit(delivery({ id: nextId(), hook: "while-down-2" }));
    await row(page, "while-down-2").waitFor({ timeout: 15_000 });
    await row(page, "while-down-1").waitFor({ timeout: 1000 });
    const hooks = await page.locator("#delivery-rows tr td:nth-child(2) a").allInnerTexts();
    expect(hooks.slice(0, 3)).toEqual(["while-down-2", "while-down-1", "seen-live"]);
  }, 60_000);

  it("a stream refused after logging out and opened again after logging in shows the deliveries recorded meanwhile", async () => {
    const holder = await context.newPage();
    await logIn(holder, base, OPERATOR_TOKEN);
    await until(() => ui.dashboard.liveFeeds().open === 1, "the feed to open");
    ui.inspector.emit(delivery({ id: nextId(), hook: "seen-live" }));
    await row(holder, "seen-live").waitFor();

    const other = await context.newPage();
    await other.goto(`${base}/ui/mappings`);
    await Promise.all([other.waitForURL(`${base}/ui/login`), other.getByRole("button", { name: "Log out" }).click()]);
    ui.inspector.emit(delivery({ id: nextId(), hook: "after-logout" }));
    // Refused (401), the browser gives the stream up; the page says the session ended and opens a new one later.
    await holder.locator("#live-status", { hasText: "session has ended" }).waitFor({ timeout: 15_000 });
    await logIn(other, base, OPERATOR_TOKEN);
    await row(holder, "after-logout").waitFor({ timeout: 10_000 });
    expect(await row(holder, "after-logout").count()).toBe(1);
  }, 60_000);
});
