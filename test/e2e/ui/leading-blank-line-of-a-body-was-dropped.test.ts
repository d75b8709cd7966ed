/**
 * Regression: the HTML parser drops one line feed right after `<pre>` and `<textarea>`,
 * so a body that starts with a blank line was shown without it on a delivery's page
 * (Pretty and Raw), and the dry-run form shown again after a dry run had lost the
 * leading line feed of the pasted body (sending it again dry-ran another body).
 * Checked in headless Chromium, by what the elements hold.
 */
import type { Browser, Page } from "playwright-core";
import { delivery } from "../../helpers/fake-inspector";
import { OPERATOR_TOKEN } from "../../helpers/ui-app";
import { launchChromium, newContext } from "./dashboard-browser";
import { serveFakeInspectorDashboard, type FakeInspectorDashboard } from "./fake-inspector-dashboard";

describe("a body that starts with a blank line, in headless Chromium", () => {
  let served: FakeInspectorDashboard;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    served = await serveFakeInspectorDashboard([
      delivery({ id: "d-text", headers: { "content-type": "text/plain" }, body: "\n\nhello" }),
      delivery({ id: "d-json", headers: { "content-type": "application/json" }, body: '\n{"a":1}' }),
    ]);
    base = served.base;
    browser = await launchChromium();
    const context = await newContext(browser);
    await context.setExtraHTTPHeaders({ authorization: `Bearer ${OPERATOR_TOKEN}` });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it("a delivery's page shows the body with its leading blank lines, Pretty and Raw", async () => {
    await page.goto(`${base}/ui/deliveries/d-text`);
    expect(await page.locator("#body").textContent()).toBe("\n\nhello");
    await page.goto(`${base}/ui/deliveries/d-json`);
    expect(await page.locator("#body-raw").textContent()).toBe('\n{"a":1}');
  });

  it("the dry-run form shown after a dry run holds the body as pasted", async () => {
    await page.goto(`${base}/ui/mappings`);
    await page.fill("#dry-hook", "github");
    await page.fill("#dry-body", '\n{"a":1}');
    await Promise.all([page.waitForURL(/\/ui\/mappings\?result=/), page.getByRole("button", { name: "Dry run" }).click()]);
    expect(await page.inputValue("#dry-body")).toBe('\n{"a":1}');
  });
});
