/**
 * Regression: the one-time login link (`GET /ui/login?code=…`) acted on requests that
 * another site started, in headless Chromium:
 *
 * - any web page could lock the operator out: six `<img src=".../ui/login?code=x">`
 *   were six wrong codes from 127.0.0.1 (the browser's address), so the operator
 *   throttle refused the right token to the operator for 15 minutes (429);
 * - the link clicked on another site's page (a web chat, a web mail) was spent and
 *   set the cookie, but the cookie (SameSite=Strict) is not sent on a redirect that
 *   another site started, so the operator saw the login form and the link was used up.
 *
 * A request the browser marks as started by another site (`Sec-Fetch-Site`) now spends
 * and counts nothing; it gets a page with a link to the same URL, which, followed from
 * the dashboard's own page, logs in.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { createFakeInspector, delivery } from "../../helpers/fake-inspector";
import { OPERATOR_TOKEN, uiApp } from "../../helpers/ui-app";
import { createLoginCodes } from "../../../src/gateway/ui/login-codes";
import { launchChromium, logIn, newContext } from "./dashboard-browser";

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, port: (server.address() as AddressInfo).port };
}

/** The dashboard at http://127.0.0.1:<port> and a page of another site (http://localhost:<port>) serving `page(dashboardUrl)`. */
async function setup(page: (dashboard: string) => string) {
  const codes = createLoginCodes();
  const ui = uiApp({ inspector: createFakeInspector({ deliveries: [delivery()] }), now: Date.now, loginCodes: codes });
  const gateway = await listen(ui.app);
  const dashboard = `http://127.0.0.1:${gateway.port}`;
  const other = await listen((_req, res) => void res.setHeader("Content-Type", "text/html").end(page(dashboard)));
  return {
    codes,
    dashboard,
    otherSite: `http://localhost:${other.port}/`,
    close() {
      ui.dashboard.close();
      gateway.server.close();
      other.server.close();
    },
  };
}

describe("the one-time login link opened by another site, in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("a hostile page's six images of the login link with wrong codes do not lock the operator out", async () => {
    const s = await setup((d) => Array.from({ length: 6 }, (_, i) => `<img src="${d}/ui/login?code=wrong-${i}">`).join(""));
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(s.otherSite, { waitUntil: "networkidle" });
    await logIn(page, s.dashboard, OPERATOR_TOKEN);
    expect(await page.textContent("h1")).toBe("Deliveries");
    await context.close();
    s.close();
  });

  it("the link clicked on another site's page logs in (one more click) instead of being spent on a login form", async () => {
    let code = "";
    const s = await setup((d) => `<a id="link" href="${d}/ui/login?code=${code}">dashboard</a>`);
    code = s.codes.issue().code;
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(s.otherSite);
    await Promise.all([page.waitForURL(`${s.dashboard}/ui/login?code=${code}`), page.click("#link")]);
    await Promise.all([page.waitForURL(`${s.dashboard}/ui/deliveries`), page.click("#login-link", { timeout: 5000 })]);
    expect(await page.textContent("h1")).toBe("Deliveries");
    expect(await page.locator("#delivery-rows tr").count()).toBe(1);
    await context.close();
    s.close();
  });
});
