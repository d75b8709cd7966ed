/**
 * The dashboard end to end in a real headless Chromium (Debian's, driven by
 * playwright-core) against a real gateway process with the real hooks plugin
 * (ledger, runs, echo runner): the login form without the token and no data;
 * log in, a mapped agent, a wake and a 404 sent to /hooks/… appearing live
 * without a reload, the agent's Run cell going to succeeded live; one delivery
 * with redacted headers (no hook token, signature or cookie anywhere on the
 * page), the body and the journal effects; Replay with the result inline and
 * the new run reaching the runner; replay without the CSRF token refused; a
 * body with <script> and HTML shown as text and never executed; the Mappings
 * dry run; the Overview charts; the phone layout. With UPDATE_SCREENSHOTS=1 it
 * writes the screenshots in docs/img/.
 */
import type { Browser, Page } from "playwright-core";
import type { GatewayProcess } from "../../helpers/gateway-process";
import { until } from "../../helpers/until";
import { DeliveriesPage, launchChromium, logIn, MappingsPage, newContext, OverviewPage, PHONE, screenshot } from "./dashboard-browser";
import { HOOK_TOKEN, OPERATOR_TOKEN, sendHook, startHooksGateway } from "./hooks-gateway";

const SIGNATURE = "sha256=9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9";
const COOKIE_VALUE = "cookie-value-ui-e2e-77aa55";
const PUSH = '{"ref":"refs/heads/main","commits":[{"id":"abc123","message":"Fix the build"}]}';
const XSS_TEXT = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b>bold?</b>`;

describe("dashboard e2e in headless Chromium, on the real hooks plugin", () => {
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
  const hookTurns = () => gw.journal().filter((e) => e.type === "agent_turn" && String(e.sessionKey).startsWith("hook:"));

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startHooksGateway(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });
  afterEach(async () => {
    for (const p of pages.splice(0)) await p.context().close();
  });

  it("without the token /ui shows only the login form, and no data", async () => {
    expect(await sendHook(gw, "wake", '{"text":"before-login secret"}')).toBe(200);
    const page = await freshPage({ login: false });
    const res = await page.goto(`${gw.baseUrl}/ui/deliveries`);
    expect(res?.status()).toBe(401);
    await expect(page.getByLabel("Operator token").isVisible()).resolves.toBe(true);
    expect(await page.content()).not.toContain("before-login");
    expect(await page.locator("nav").count()).toBe(0);
    const api = await page.request.get(`${gw.baseUrl}/ui/api/events`);
    expect(api.status()).toBe(401);
    await screenshot(page, "dashboard-login");

    await page.getByLabel("Operator token").fill("not-the-token");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page.getByRole("alert").innerText()).resolves.toBe("The token is not valid.");
  });

  it("log in; an agent, a wake and a 404 appear live, the run status follows live; one delivery (redacted headers, body, journal effects); replay reaches the runner", async () => {
    const page = await freshPage();
    const list = new DeliveriesPage(page, gw.baseUrl);
    await list.waitForLive();
    await page.evaluate("window.__sameDocument = true");
    // Every text the github row's Run cell shows, in order, recorded by the page itself (so a slow test
    // runner that looks late still sees the state the row arrived with).
    await page.evaluate(`(() => {
      window.__githubRunStates = [];
      const note = () => {
        for (const row of document.querySelectorAll("#delivery-rows tr")) {
          if (row.querySelector("td:nth-child(2) a")?.textContent !== "github") continue;
          const text = row.querySelector("td:last-child")?.textContent ?? "";
          if (window.__githubRunStates.at(-1) !== text) window.__githubRunStates.push(text);
        }
      };
      new MutationObserver(note).observe(document.getElementById("delivery-rows"), { childList: true, subtree: true, characterData: true });
    })()`);

    const secrets = { "x-hub-signature-256": SIGNATURE, cookie: `sid=${COOKIE_VALUE}`, "x-github-event": "push" };
    expect(await sendHook(gw, "github", PUSH, secrets)).toBe(202);
    expect(await sendHook(gw, "wake", '{"text":"Build finished"}')).toBe(200);
    expect(await sendHook(gw, "nowhere", '{"x":1}')).toBe(404);

    for (const hook of ["github", "wake", "nowhere"])
      await list
        .rows()
        .filter({ has: page.getByRole("link", { name: hook, exact: true }) })
        .first()
        .waitFor();
    expect(await page.evaluate("window.__sameDocument")).toBe(true);
    expect((await list.hookLinks().allInnerTexts()).slice(0, 3)).toEqual(["nowhere", "wake", "github"]);
    await expect(page.locator("#live-status").innerText()).resolves.toBe("Live: 3 new deliveries since the page loaded.");
    await expect(list.rows().first().locator(".status").innerText()).resolves.toBe("404");

    // The echo turn takes 1.5 s: the row arrived before the run ended, and the Run cell follows it without a reload.
    const runCell = list.rows().nth(2).locator("td:last-child");
    await until(async () => (await runCell.innerText()) === "succeeded", "the Run cell of the github row to turn succeeded", {
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    const states = (await page.evaluate("window.__githubRunStates")) as string[];
    expect(["queued", "running"]).toContain(states[0]);
    expect(states.at(-1)).toBe("succeeded");
    expect(await page.evaluate("window.__sameDocument")).toBe(true);
    await screenshot(page, "dashboard-deliveries");

    const wakeHref = await list.rows().nth(1).locator("td:nth-child(2) a").getAttribute("href");
    const detail = await list.openDelivery("github");
    for (const name of ["authorization", "x-hub-signature-256", "cookie"]) await expect(detail.headerValue(name).innerText()).resolves.toBe("[REDACTED]");
    await expect(detail.headerValue("x-github-event").innerText()).resolves.toBe("push");
    const html = await page.content();
    for (const secret of [HOOK_TOKEN, SIGNATURE, COOKIE_VALUE]) expect(html).not.toContain(secret);
    await expect(detail.body().innerText()).resolves.toContain('"message": "Fix the build"');
    const effects = await page.locator("#journal-effects").innerText();
    expect(effects).toMatch(/agent turn on session hook:\S+: ok in \d+ ms; reply: echo: /);
    expect(effects).toContain("delivery on channel phone_chat: echo: ");
    expect(effects).toMatch(/system event on session main from hook:github: /);
    await screenshot(page, "dashboard-delivery", { fullPage: true });

    await detail.replay();
    await expect(detail.replayResult().innerText()).resolves.toMatch(/^Replayed: status 202, new delivery \S+\.$/);
    await until(() => hookTurns().length === 2, "the replayed run to reach the echo runner", { timeoutMs: 15_000 });
    await Promise.all([page.waitForURL(/\/ui\/deliveries\/[^/]+$/), detail.replayResult().getByRole("link").click()]);
    await expect(page.locator("main > .facts").innerText()).resolves.toContain("Replay of");
    await expect(page.locator("article.run h3").innerText()).resolves.toMatch(/: succeeded$/);
    await expect(page.locator("#journal-effects").innerText()).resolves.toMatch(/agent turn on session hook:\S+: ok/);

    // The wake's event, then the heartbeat it asked for (which runs on its own schedule: reload until it is journaled).
    let wakeEffects = "";
    await until(
      async () => {
        await page.goto(`${gw.baseUrl}${wakeHref}`);
        wakeEffects = await page.locator("main").innerText();
        return wakeEffects.includes("heartbeat reason");
      },
      "the wake's heartbeat among its journal effects",
      { timeoutMs: 15_000, intervalMs: 250, detail: () => wakeEffects },
    );
    expect(wakeEffects).toMatch(/system event on session main from hook:wake: [\s\S]*Build finished/);
    expect(wakeEffects).toMatch(/heartbeat reason hook:wake, \d+ pending system event/);
  });

  it("replay without the session's CSRF token is refused with 403 csrf_token_invalid, and starts nothing", async () => {
    const page = await freshPage();
    expect(await sendHook(gw, "wake", '{"text":"replay me"}')).toBe(200);
    const list = new DeliveriesPage(page, gw.baseUrl);
    await list.open();
    const href = await list.rows().first().locator("td:nth-child(2) a").getAttribute("href");
    const before = (await list.hookLinks().allInnerTexts()).length;
    const res = await page.request.post(`${gw.baseUrl}${href}/replay`, { headers: { origin: gw.baseUrl }, form: { other: "x" } });
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain('data-code="csrf_token_invalid"');
    await list.open();
    expect((await list.hookLinks().allInnerTexts()).length).toBe(before);
  });

  it("a body with <script> and HTML is shown as text and never executed (body and journal effects)", async () => {
    const page = await freshPage();
    expect(await sendHook(gw, "wake", JSON.stringify({ text: XSS_TEXT }))).toBe(200);
    const list = new DeliveriesPage(page, gw.baseUrl);
    await list.open();
    const detail = await list.openDelivery("wake");
    await expect(detail.body().innerText()).resolves.toContain(XSS_TEXT.replace(/"/g, '\\"'));
    await expect(page.locator("#journal-effects").innerText()).resolves.toContain("<script>window.__pwned = 1</script>");
    expect(await page.locator("main img, main b, main script").count()).toBe(0);
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
  });

  it("the Mappings page lists the mappings in order and dry-runs a pasted payload", async () => {
    const page = await freshPage();
    const mappings = new MappingsPage(page, gw.baseUrl);
    await mappings.open();
    const ids = await mappings.rows().locator("td:nth-child(2)").allInnerTexts();
    expect(ids.slice(0, 2)).toEqual(["github-push", "github-late"]);
    await expect(mappings.rows().nth(1).innerText()).resolves.toContain("shadowed by github-push");
    await mappings.dryRun({ hook: "github", headers: "x-github-event: push\ncontent-type: application/json", body: PUSH });
    const result = await mappings.result().innerText();
    expect(result).toContain("Accepted by mapping github-push");
    expect(result).toContain("Push to refs/heads/main");
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
    // Earlier tests' pages stay open in other contexts: keys go to the page that has focus, so give it focus first
    // (on a loaded CI runner the Tab otherwise went nowhere and the body stayed active).
    await page.bringToFront();
    await until(() => page.evaluate<boolean>("document.hasFocus()"), "the phone page to have the focus");
    await page.keyboard.press("Tab");
    await expect(page.evaluate("document.activeElement.textContent")).resolves.toBe("Skip to content");
    await page.keyboard.press("Enter");
    // Following the link moves the focus once the fragment navigation is done, which can be after press() returns.
    await until(async () => (await page.evaluate("document.activeElement.id")) === "main", "the skip link to move the focus to the main region");
    await expect(page.evaluate("document.activeElement.id")).resolves.toBe("main");
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE.width);
  });
});
