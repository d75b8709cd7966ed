/**
 * The dashboard end to end in a real headless Chromium (Debian's, driven by
 * playwright-core) against a real gateway process: the login form without the
 * token and no data; log in, three hooks appearing live without a reload, one
 * delivery with redacted headers and body, Replay with the new result; a body
 * with <script> and HTML shown as text and never executed; the Mappings dry run;
 * the Overview charts; the phone layout. With UPDATE_SCREENSHOTS=1 it writes the
 * screenshots in docs/img/.
 */
import type { Browser, Page } from "playwright-core";
import type { GatewayProcess } from "../../helpers/gateway-process";
import { DeliveriesPage, launchChromium, logIn, MappingsPage, newContext, OverviewPage, PHONE, screenshot } from "./dashboard-browser";
import { OPERATOR_TOKEN, sendHook, startInspectorGateway } from "./inspector-gateway";

const XSS_BODY = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b>bold?</b>`;

describe("dashboard e2e in headless Chromium", () => {
  let gw: GatewayProcess;
  let browser: Browser;
  const pages: Page[] = [];

  /** A page in a fresh context (own cookies), logged in unless told otherwise. */
  async function freshPage(opts: { login?: boolean; viewport?: { width: number; height: number } } = {}): Promise<Page> {
    const page = await (await newContext(browser, opts.viewport)).newPage();
    pages.push(page);
    if (opts.login !== false) await logIn(page, gw.baseUrl, OPERATOR_TOKEN);
    return page;
  }

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startInspectorGateway(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });
  afterEach(async () => {
    for (const p of pages.splice(0)) await p.context().close();
  });

  it("without the token /ui shows only the login form, and no data", async () => {
    expect(await sendHook(gw, "before-login", '{"secret":"not for strangers"}')).toBe(202);
    const page = await freshPage({ login: false });
    const res = await page.goto(`${gw.baseUrl}/ui/deliveries`);
    expect(res?.status()).toBe(401);
    await expect(page.getByLabel("Operator token").isVisible()).resolves.toBe(true);
    const text = await page.locator("body").innerText();
    expect(text).not.toContain("before-login");
    expect(await page.locator("nav").count()).toBe(0);
    const api = await page.request.get(`${gw.baseUrl}/ui/api/events`);
    expect(api.status()).toBe(401);
    await screenshot(page, "dashboard-login");

    await page.getByLabel("Operator token").fill("not-the-token");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page.getByRole("alert").innerText()).resolves.toBe("The token is not valid.");
  });

  it("log in, three hooks appear live without reload, open one (redacted headers, body), replay it and see the new result", async () => {
    const page = await freshPage();
    const list = new DeliveriesPage(page, gw.baseUrl);
    await list.waitForLive();
    await page.evaluate("window.__sameDocument = true");

    expect(await sendHook(gw, "github", '{"ref":"refs/heads/main","commits":[{"id":"abc123","message":"Fix the build"}]}', { "x-hub-signature-256": "sha256=deadbeef", authorization: "Bearer sender-secret", "x-github-event": "push" })).toBe(202);
    expect(await sendHook(gw, "stripe", '{"type":"invoice.paid","data":{"amount":4200}}', { "stripe-signature": "t=1,v1=abc" })).toBe(202);
    expect(await sendHook(gw, "missing", '{"x":1}')).toBe(404);

    for (const hook of ["github", "stripe", "missing"]) await list.rows().filter({ has: page.getByRole("link", { name: hook, exact: true }) }).first().waitFor();
    expect(await page.evaluate("window.__sameDocument")).toBe(true);
    expect((await list.hookLinks().allInnerTexts()).slice(0, 3)).toEqual(["missing", "stripe", "github"]);
    await expect(page.locator("#live-status").innerText()).resolves.toBe("Live: 3 new deliveries since the page loaded.");
    await expect(list.rows().first().locator(".status").innerText()).resolves.toBe("404");
    await screenshot(page, "dashboard-deliveries");

    const detail = await list.openDelivery("github");
    await expect(detail.headerValue("x-hub-signature-256").innerText()).resolves.toBe("[redacted]");
    await expect(detail.headerValue("authorization").innerText()).resolves.toBe("[redacted]");
    await expect(detail.headerValue("x-github-event").innerText()).resolves.toBe("push");
    expect(await page.locator("main").innerText()).not.toContain("sender-secret");
    await expect(detail.body().innerText()).resolves.toContain('"message": "Fix the build"');
    await screenshot(page, "dashboard-delivery");

    await detail.replay();
    await expect(detail.replayResult().innerText()).resolves.toMatch(/^Replayed: status 202, new delivery dlv-\S+\.$/);
    await Promise.all([page.waitForURL(/\/ui\/deliveries\/dlv-/), detail.replayResult().getByRole("link").click()]);
    await expect(page.locator("main > .facts").innerText()).resolves.toContain("Replay of");
  });

  it("a body with <script> and HTML is shown as text and never executed", async () => {
    const page = await freshPage();
    expect(await sendHook(gw, "<i>xss</i>", XSS_BODY, { "content-type": "text/plain" })).toBe(202);
    const list = new DeliveriesPage(page, gw.baseUrl);
    await list.open();
    const detail = await list.openDelivery("<i>xss</i>");
    await expect(detail.body().innerText()).resolves.toBe(XSS_BODY);
    expect(await page.locator("main img, main b, main i").count()).toBe(0);
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
  });

  it("the Mappings page lists the mappings in order and dry-runs a pasted payload", async () => {
    const page = await freshPage();
    const mappings = new MappingsPage(page, gw.baseUrl);
    await mappings.open();
    expect(await mappings.rows().locator("td:nth-child(2)").allInnerTexts()).toEqual(["fixture-github", "fixture-any", "fixture-late"]);
    await expect(mappings.rows().nth(2).innerText()).resolves.toContain("shadowed by fixture-github");
    await mappings.dryRun({ hook: "github", headers: "x-github-event: push\ncontent-type: application/json", body: '{"ref":"refs/heads/main"}' });
    const result = await mappings.result().innerText();
    expect(result).toContain("Accepted by mapping fixture-github");
    expect(result).toContain('message: Event push: {"ref":"refs/heads/main"}');
    await screenshot(page, "dashboard-mappings", { fullPage: true });
  });

  it("the Overview draws its charts with the bundled uPlot, with no CSP violation", async () => {
    const page = await freshPage();
    const problems: string[] = [];
    page.on("console", (m) => void (m.type() === "error" && problems.push(m.text())));
    page.on("pageerror", (e) => void problems.push(e.message));
    const overview = new OverviewPage(page, gw.baseUrl);
    await overview.open();
    await overview.waitForCharts();
    expect(Number(await page.locator("#queued").innerText())).toBeGreaterThanOrEqual(0);
    expect(problems).toEqual([]);
    await screenshot(page, "dashboard-overview", { fullPage: true });
  });

  it("is keyboard-usable and fits a phone: the skip link comes first, nothing scrolls sideways at 390 px", async () => {
    const page = await freshPage({ viewport: PHONE });
    await screenshot(page, "dashboard-deliveries-phone");
    await page.keyboard.press("Tab");
    await expect(page.evaluate("document.activeElement.textContent")).resolves.toBe("Skip to content");
    await page.keyboard.press("Enter");
    await expect(page.evaluate("document.activeElement.id")).resolves.toBe("main");
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE.width);
  });
});
