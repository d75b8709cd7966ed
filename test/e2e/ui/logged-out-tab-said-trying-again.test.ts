/**
 * Regression, in headless Chromium: a Deliveries tab whose session had ended (logged
 * out in another tab, or expired) said "Live feed interrupted; trying again in 2 s…"
 * for ever — the feed answered 401, which no retry can fix. Now the page asks
 * /ui/api/session when its stream is refused and, when the login is gone, says the
 * session has ended with a "Log in again" link back to the same page (filters kept);
 * every Deliveries tab says it (the one holding the stream and those it relays to).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { deliveryId } from "../../../src/intake/ledger/delivery-id";
import { DEFAULT_SESSION_TTL_MS } from "../../../src/gateway/ui/ui-sessions";
import { delivery } from "../../helpers/fake-inspector";
import { until } from "../../helpers/until";
import { OPERATOR_TOKEN } from "../../helpers/ui-app";
import { launchChromium, logIn, newContext } from "./dashboard-browser";
import { serveFakeInspectorDashboard, type FakeInspectorDashboard } from "./fake-inspector-dashboard";

const ENDED = "Your dashboard session has ended (logged out or expired)";
const PAGE = "/ui/deliveries?hook=crm";

describe("a Deliveries tab whose session ended, in headless Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let served: FakeInspectorDashboard;
  let clock = Date.now();

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    clock = Date.now();
    // The sessions' clock is the test's, so a session can expire; a short keep-alive makes the feed notice soon.
    served = await serveFakeInspectorDashboard([delivery({ id: deliveryId(clock - 1000), hook: "crm" })], { now: () => clock, keepAliveMs: 200 });
    context = await newContext(browser);
  });
  afterEach(async () => {
    await context.close();
    await served.close();
  });

  const status = (page: Page) => page.locator("#live-status");

  /** Two Deliveries tabs, live: the first holds the stream, the second hears it relayed. */
  async function twoLiveTabs(): Promise<[Page, Page]> {
    const first = await context.newPage();
    await logIn(first, served.base, OPERATOR_TOKEN, PAGE);
    const second = await context.newPage();
    await second.goto(`${served.base}${PAGE}`);
    for (const page of [first, second]) await status(page).getByText("Live:").waitFor();
    await until(() => served.ui.dashboard.liveFeeds().open === 1, "one shared feed");
    return [first, second];
  }

  /** Both tabs say the session ended (never "trying again"), with a link that logs in and comes back live. */
  async function expectLogInAgain(tabs: Page[]): Promise<void> {
    for (const page of tabs) {
      await status(page).getByText(ENDED).waitFor({ timeout: 20_000 });
      expect(await status(page).textContent()).not.toContain("trying again");
      const link = status(page).getByRole("link", { name: "Log in again" });
      expect(await link.getAttribute("href")).toBe(`/ui/login?next=${encodeURIComponent(PAGE)}`);
    }
    const [first] = tabs;
    await status(first!).getByRole("link", { name: "Log in again" }).click();
    await first!.getByLabel("Operator token").fill(OPERATOR_TOKEN);
    await Promise.all([first!.waitForURL(`${served.base}${PAGE}`), first!.getByRole("button", { name: "Log in" }).click()]);
    await status(first!).getByText("Live:").waitFor();
  }

  it("logged out in another tab: the tabs say the session ended and link to the login, not 'trying again'", async () => {
    const tabs = await twoLiveTabs();
    const other = await context.newPage();
    await other.goto(`${served.base}/ui/mappings`);
    await Promise.all([other.waitForURL(`${served.base}/ui/login`), other.getByRole("button", { name: "Log out" }).click()]);
    await expectLogInAgain(tabs);
  }, 60_000);

  it("expired: the tabs say the session ended and link to the login, not 'trying again'", async () => {
    const tabs = await twoLiveTabs();
    clock += DEFAULT_SESSION_TTL_MS + 1000;
    await expectLogInAgain(tabs);
  }, 60_000);

  it("a feed refused while the session holds (503, too many feeds) still says 'trying again'", async () => {
    const [first] = await twoLiveTabs();
    await context.route("**/ui/api/events*", (route) =>
      route.fulfill({ status: 503, contentType: "application/json", body: '{"ok":false,"code":"too_many_streams","error":"busy"}' }),
    );
    served.ui.dashboard.close();
    await status(first).getByText("trying again in").waitFor({ timeout: 20_000 });
    expect(await status(first).textContent()).not.toContain(ENDED);
  }, 60_000);
});
