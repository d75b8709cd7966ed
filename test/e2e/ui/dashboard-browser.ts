/**
 * Browser side of the dashboard e2e tests: Debian's Chromium driven by
 * playwright-core (no browser download), a `logIn` helper and one small page
 * object per dashboard page. Nothing here knows which plugin feeds the
 * dashboard: the tests pass in how to send a hook (see inspector-gateway.ts).
 *
 * Screenshots are written to docs/img/ only when UPDATE_SCREENSHOTS=1, so a
 * normal run never dirties the tree.
 */
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { REPO_ROOT } from "../../helpers/gateway-process";

export const CHROMIUM = "/usr/bin/chromium";
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}

/** A fresh context (own cookies) at a deterministic viewport, UTC, en-US. */
export function newContext(browser: Browser, viewport = DESKTOP): Promise<BrowserContext> {
  return browser.newContext({ viewport, deviceScaleFactor: 1, locale: "en-US", timezoneId: "UTC", reducedMotion: "reduce" });
}

/** Writes docs/img/<name>.png when UPDATE_SCREENSHOTS=1 (the viewport, or the whole page with fullPage). */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== "1") return;
  await page.screenshot({ path: path.join(REPO_ROOT, "docs", "img", `${name}.png`), fullPage: opts.fullPage ?? false });
}

/** Logs in through the form; resolves on the page the form leads to. */
export async function logIn(page: Page, baseUrl: string, token: string, next = "/ui/deliveries"): Promise<void> {
  await page.goto(`${baseUrl}${next}`);
  await page.getByLabel("Operator token").fill(token);
  await Promise.all([page.waitForURL(`${baseUrl}${next}`), page.getByRole("button", { name: "Log in" }).click()]);
}

export class DeliveriesPage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}
  async open(query = ""): Promise<void> {
    await this.page.goto(`${this.baseUrl}/ui/deliveries${query}`);
  }
  rows() {
    return this.page.locator("#delivery-rows tr");
  }
  /** Waits until the live feed is connected (the browser's EventSource opened). */
  async waitForLive(): Promise<void> {
    await this.page.waitForFunction('document.getElementById("live-status").textContent.startsWith("Live")');
  }
  hookLinks() {
    return this.rows().locator("td:nth-child(2) a");
  }
  async openDelivery(hook: string): Promise<DeliveryPage> {
    await Promise.all([this.page.waitForURL(/\/ui\/deliveries\/[^/]+$/), this.rows().getByRole("link", { name: hook, exact: true }).first().click()]);
    return new DeliveryPage(this.page);
  }
}

export class DeliveryPage {
  constructor(readonly page: Page) {}
  headerValue(name: string) {
    return this.page.locator("table.headers tr", { has: this.page.locator(`th:text-is("${name}")`) }).locator("td");
  }
  body() {
    return this.page.locator("#body");
  }
  async replay(): Promise<void> {
    await Promise.all([this.page.waitForURL(/\/ui\/deliveries\/[^/?]+\?result=/), this.page.getByRole("button", { name: "Replay" }).click()]);
  }
  replayResult() {
    return this.page.locator("#replay-result");
  }
}

export class MappingsPage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}
  async open(): Promise<void> {
    await this.page.goto(`${this.baseUrl}/ui/mappings`);
  }
  rows() {
    return this.page.locator("table.mappings tbody tr");
  }
  async dryRun(input: { hook: string; headers: string; body: string }): Promise<void> {
    await this.page.getByLabel("Hook (the path after the hooks prefix)").fill(input.hook);
    await this.page.getByLabel("Headers").fill(input.headers);
    await this.page.getByLabel("Body", { exact: true }).fill(input.body);
    await Promise.all([this.page.waitForURL(/\/ui\/mappings\?result=/), this.page.getByRole("button", { name: "Dry run" }).click()]);
  }
  result() {
    return this.page.locator("#dry-run-result");
  }
}

export class OverviewPage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}
  async open(): Promise<void> {
    await this.page.goto(`${this.baseUrl}/ui/overview`);
  }
  /** Waits until uPlot drew both charts (a canvas in each). */
  async waitForCharts(): Promise<void> {
    await this.page.locator("#chart-requests canvas").waitFor();
    await this.page.locator("#chart-latency canvas").waitFor();
  }
}
