/**
 * Regression: a right-to-left override (U+202E) in a sender's event name, hook name
 * or URL reordered what the dashboard shows AFTER it. HTML keeps an override open
 * to the end of its block, so the `repeat` badge after a hostile event was drawn
 * reversed ("taeper") and to its left, and on a delivery's page the status after a
 * hostile URL was drawn reversed too (`401` read as `104`). Every element that holds
 * sender text is now its own bidi isolate (dashboard.css): the sender's text can
 * reorder only itself. Checked in headless Chromium, by where the text is drawn.
 */
import type { Browser, Page } from "playwright-core";
import { delivery } from "../../helpers/fake-inspector";
import { OPERATOR_TOKEN } from "../../helpers/ui-app";
import { launchChromium, newContext } from "./dashboard-browser";
import { serveFakeInspectorDashboard, type FakeInspectorDashboard } from "./fake-inspector-dashboard";

const RLO = "\u202e";

/** True when the element matched by `after` is drawn wholly right of the one matched by `before` (LTR order kept). */
function drawnInOrder(page: Page, before: string, after: string): Promise<boolean> {
  return page.evaluate(
    `(() => {
      const a = document.querySelector(${JSON.stringify(before)}).getBoundingClientRect();
      const b = document.querySelector(${JSON.stringify(after)}).getBoundingClientRect();
      return b.left >= a.right - 0.5;
    })()`,
  ) as Promise<boolean>;
}

describe("a bidi override in sender text, in headless Chromium", () => {
  let served: FakeInspectorDashboard;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    served = await serveFakeInspectorDashboard([
      delivery({ id: "d-1", hook: `${RLO}crm`, event: `${RLO}deal.won`, repeat: true, url: `/hooks/crm${RLO}x`, status: 401, code: "unauthorized" }),
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

  it("the deliveries list: the badge after a hostile event and hook stays right of them", async () => {
    await page.goto(`${base}/ui/deliveries`);
    expect(await page.textContent("tr[data-id='d-1'] .badge-repeat")).toBe("repeat");
    expect(await drawnInOrder(page, "tr[data-id='d-1'] td.what .event", "tr[data-id='d-1'] .badge-repeat")).toBe(true);
    expect(await drawnInOrder(page, "tr[data-id='d-1'] td.what a", "tr[data-id='d-1'] td.what .event")).toBe(true);
  });

  it("one delivery: the badge after the event, and the status after the URL, stay right of them", async () => {
    await page.goto(`${base}/ui/deliveries/d-1`);
    expect(await drawnInOrder(page, "#delivery-event code", "#delivery-event .badge-repeat")).toBe(true);
    expect(await drawnInOrder(page, ".request-line code", ".request-line .status")).toBe(true);
  });
});
