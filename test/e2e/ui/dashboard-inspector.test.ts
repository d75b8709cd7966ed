/**
 * The dashboard as an inspector (issue 24), in headless Chromium on the real
 * gateway and hooks plugin: every page at 390 px (no sideways scroll, no clipped
 * text, no cell narrower than its longest word); a bad filter (`?status=abc`) named
 * on the page while the live feed stays alive (regression: the page looped on
 * "reconnecting…"); reloading after Replay adds no delivery (regression: one more
 * per reload) and the replay carries its badge; the chart axis in UTC in a browser
 * whose clock is not; a search for a body word finds its delivery; a GitHub
 * `pull_request` and a `push` (GitHub's example payloads, signed with
 * @octokit/webhooks) show as such, and an idempotent repeat carries its badge.
 */
import type { Browser, Page } from "playwright-core";
import type { GatewayProcess } from "../../helpers/gateway-process";
import { until } from "../../helpers/until";
import { DeliveriesPage, DESKTOP, launchChromium, logIn, newContext, OverviewPage, PHONE } from "./dashboard-browser";
import { githubExample } from "../../helpers/github-examples";
import { signHeaders } from "../../helpers/signers";
import { GITHUB_SECRET, HOOK_TOKEN, OPERATOR_TOKEN, sendHook, startHooksGateway } from "./hooks-gateway";

const PUSH = '{"ref":"refs/heads/main","commits":[{"id":"abc123","message":"Fix the build"}]}';
/** A body with a long unbreakable string (it must wrap on a phone) and a word to search for. */
const LONG = JSON.stringify({ text: `Deploy ${"x".repeat(120)} finished; marker quokkasearchword`, url: `https://example.com/${"segment/".repeat(20)}` });

/**
 * What breaks a phone layout, found in the page itself: the document wider than the
 * viewport; an element whose content is wider than its box (clipped or spilling, also
 * under overflow: hidden; form controls and off-screen helpers aside); a table cell
 * narrower than its longest word (runs of letters of at most 20: ids, hashes and URLs
 * may break anywhere).
 */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(LAYOUT_PROBLEMS);
}

/** Runs in the page (a string: the tests are compiled without the DOM library). */
const LAYOUT_PROBLEMS = `(() => {
    const problems = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth) problems.push(\`document scrollWidth \${doc.scrollWidth} > \${window.innerWidth}\`);
    const name = (el) => \`\${el.tagName.toLowerCase()}\${el.id ? \`#\${el.id}\` : ""}\${el.className && typeof el.className === "string" ? \`.\${el.className.split(" ").join(".")}\` : ""}\`;
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      if (!(el instanceof HTMLElement) || el.closest(".visually-hidden, .skip, .uplot, thead, select, textarea, input, button, svg, canvas")) continue;
      const style = getComputedStyle(el);
      if (style.display === "none" || style.display === "inline" || el.clientWidth === 0) continue;
      if (el.scrollWidth > el.clientWidth + 1) problems.push(\`\${name(el)}: content \${el.scrollWidth} px in a box of \${el.clientWidth} px\`);
    }
    const probe = document.createElement("span");
    probe.style.cssText = "position:absolute;visibility:hidden;white-space:nowrap";
    document.body.appendChild(probe);
    for (const cell of Array.from(document.querySelectorAll("td, tbody th"))) {
      if (!(cell instanceof HTMLElement) || getComputedStyle(cell).display === "none") continue;
      const words = (cell.innerText.match(/\\p{L}{1,20}/gu) ?? []).sort((a, b) => b.length - a.length);
      if (words.length === 0) continue;
      probe.style.font = getComputedStyle(cell).font;
      probe.textContent = words[0];
      const cs = getComputedStyle(cell);
      const inner = cell.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      if (probe.offsetWidth > inner + 1) problems.push(\`\${name(cell)}: "\${words[0]}" needs \${probe.offsetWidth} px, the cell has \${inner}\`);
    }
    probe.remove();
    return problems;
  })()`;

describe("dashboard as an inspector, in headless Chromium on the real hooks plugin", () => {
  let gw: GatewayProcess;
  let browser: Browser;
  const pages: Page[] = [];

  /** A logged-in page in a fresh context; `timezoneId` gives the browser another clock than UTC. */
  async function freshPage(opts: { viewport?: { width: number; height: number }; timezoneId?: string } = {}): Promise<Page> {
    const context = opts.timezoneId
      ? await browser.newContext({ viewport: DESKTOP, deviceScaleFactor: 1, locale: "en-US", timezoneId: opts.timezoneId })
      : await newContext(browser, opts.viewport);
    const page = await context.newPage();
    pages.push(page);
    await logIn(page, gw.baseUrl, OPERATOR_TOKEN);
    return page;
  }

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startHooksGateway(), launchChromium()]);
    expect(await sendHook(gw, "github", PUSH, { "x-github-event": "push" })).toBe(202);
    expect(await sendHook(gw, "wake", LONG)).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });
  afterEach(async () => {
    for (const p of pages.splice(0)) await p.context().close();
  });

  it("every page fits 390 px: no sideways scroll, no clipped text, no cell narrower than its longest word", async () => {
    const page = await freshPage({ viewport: PHONE });
    const list = new DeliveriesPage(page, gw.baseUrl);
    await list.open();
    const wakeHref = await list
      .rows()
      .filter({ has: page.getByRole("link", { name: "wake", exact: true }) })
      .first()
      .locator("a")
      .first()
      .getAttribute("href");
    const githubHref = await list
      .rows()
      .filter({ has: page.getByRole("link", { name: "github", exact: true }) })
      .first()
      .locator("a")
      .first()
      .getAttribute("href");
    // The wake's journal effects (long unbreakable text) are written by then: the page is read once they are.
    await until(
      async () => {
        await page.goto(`${gw.baseUrl}${wakeHref}`);
        return (await page.locator("#journal-effects li").count()) > 0;
      },
      "the wake's journal effects",
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    // The check finds what it looks for: a clipped box and a squeezed cell put into the page are reported.
    // (Styles set through the CSSOM: the page's CSP refuses style attributes.)
    await page.evaluate(`(() => {
      const main = document.querySelector("main");
      main.insertAdjacentHTML("beforeend", '<div id="bad-box">clipped text that is much wider</div><table><tr><td id="bad-cell">Shadowed</td><td>x</td></tr></table>');
      Object.assign(document.getElementById("bad-box").style, { width: "60px", overflow: "hidden", whiteSpace: "nowrap" });
      Object.assign(document.getElementById("bad-cell").style, { width: "10px", maxWidth: "10px", overflowWrap: "anywhere" });
    })()`);
    const found = await layoutProblems(page);
    expect([found.some((p) => p.startsWith("div#bad-box")), found.some((p) => p.startsWith("td#bad-cell"))]).toEqual([true, true]);
    const checked: Record<string, string[]> = {};
    for (const path of ["/ui/deliveries", "/ui/deliveries?status=abc", wakeHref!, githubHref!, "/ui/mappings", "/ui/overview"]) {
      await page.goto(`${gw.baseUrl}${path}`);
      if (path === "/ui/overview") await new OverviewPage(page, gw.baseUrl).waitForCharts();
      checked[path] = await layoutProblems(page);
    }
    await page.goto(`${gw.baseUrl}/ui/mappings`);
    await page.getByLabel("Hook (the path after the hooks prefix)").fill("github");
    await page.getByLabel("Body", { exact: true }).fill(PUSH);
    await Promise.all([page.waitForURL(/\/ui\/mappings\?result=/), page.getByRole("button", { name: "Dry run" }).click()]);
    checked["/ui/mappings (dry-run result)"] = await layoutProblems(page);
    expect(checked).toEqual(Object.fromEntries(Object.keys(checked).map((k) => [k, []])));
  });

  it("a bad filter (?status=abc) is named on the page and the live feed stays alive: a new delivery appears (regression: the feed answered 400 and the page looped on reconnecting)", async () => {
    const page = await freshPage();
    const list = new DeliveriesPage(page, gw.baseUrl);
    await list.open("?status=abc");
    await expect(page.locator("#filter-problem").innerText()).resolves.toBe("status must be an HTTP status (404) or a class (4xx).");
    await list.waitForLive();
    expect(await sendHook(gw, "nowhere-live", '{"x":1}')).toBe(404);
    await list
      .rows()
      .filter({ has: page.getByRole("link", { name: "nowhere-live", exact: true }) })
      .first()
      .waitFor();
    await expect(page.locator("#live-status").innerText()).resolves.toBe("Live: 1 new delivery since the page loaded.");
  });

  it("Replay goes POST → redirect → GET: the result is shown, reloading adds no delivery, and the new delivery carries the replay badge", async () => {
    const page = await freshPage();
    const list = new DeliveriesPage(page, gw.baseUrl);
    await list.open();
    const detail = await list.openDelivery("github");
    await Promise.all([page.waitForURL(/\?result=/), page.getByRole("button", { name: "Replay" }).click()]);
    await expect(page.locator("#replay-result").innerText()).resolves.toMatch(/^Replayed: status 202, new delivery \S+\.$/);
    const newId = await page.locator("#replay-result a").innerText();
    const listed = async () =>
      (await (
        await page.request.get(`${gw.baseUrl}/hooks/deliveries?limit=500&hook=github`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } })
      ).json()) as { deliveries: Array<{ id: string; replayOf?: string }> };
    await until(async () => (await listed()).deliveries.some((d) => d.id === newId), "the replay's delivery to be listed");
    const before = (await listed()).deliveries.length;
    for (let i = 0; i < 2; i++) {
      await page.reload();
      await expect(detail.replayResult().innerText()).resolves.toContain(newId);
    }
    expect((await listed()).deliveries.length).toBe(before);
    await list.open();
    const row = list.rows().filter({ has: page.locator(`a[href="/ui/deliveries/${newId}"]`) });
    await expect(row.locator(".badge-replay").innerText()).resolves.toBe("replay");
  });

  it("the chart axis is UTC in a browser whose clock is not (Asia/Kolkata, UTC+05:30)", async () => {
    const page = await freshPage({ timezoneId: "Asia/Kolkata" });
    const overview = new OverviewPage(page, gw.baseUrl);
    await overview.open();
    await overview.waitForCharts();
    const chart = page.locator("#chart-requests");
    const minutes = (JSON.parse((await chart.getAttribute("data-series"))!) as { x: number[] }).x;
    const utc = new Set(minutes.map((s) => new Date(s * 1000).toISOString().slice(11, 16)));
    const ticks = ((await chart.getAttribute("data-x-ticks")) ?? "").split(",").filter((t) => t !== "");
    expect(ticks.length).toBeGreaterThan(1);
    expect(ticks.filter((t) => !utc.has(t))).toEqual([]);
    expect(await page.evaluate("new Date().getTimezoneOffset()")).toBe(-330);
  });

  it("a search for a word of a body finds its delivery, and only the deliveries that have it", async () => {
    const page = await freshPage();
    const list = new DeliveriesPage(page, gw.baseUrl);
    await list.open("?search=quokkasearchword");
    await expect(list.hookLinks().allInnerTexts()).resolves.toEqual(["wake"]);
    await expect(page.locator("#live-status").innerText()).resolves.toBe("Search results, newest first (not live).");
    // Two words through the form, in any case: every term, each matched whole.
    await page.getByLabel("Search").fill("Quokkasearchword finished");
    await Promise.all([page.waitForURL(/search=Quokkasearchword\+finished(&|$)/), page.getByRole("button", { name: "Filter" }).click()]);
    await expect(list.hookLinks().allInnerTexts()).resolves.toEqual(["wake"]);
    await list.open("?search=nothingmatchesthisword");
    await expect(page.locator("#no-deliveries").isVisible()).resolves.toBe(true);
  });

  it("a signed GitHub pull_request and push show their events in the list and on top of the delivery page; an idempotent repeat carries its badge", async () => {
    const send = async (event: string, payload: object, extra: Record<string, string> = {}) => {
      const body = JSON.stringify(payload);
      return sendHook(gw, "github-signed", body, { "x-github-event": event, ...(await signHeaders("github", GITHUB_SECRET, body)), ...extra });
    };
    expect(
      await send(
        "pull_request",
        githubExample("pull_request", (p) => p.action === "opened"),
      ),
    ).toBe(200);
    const push = githubExample("push");
    expect(await send("push", push, { "idempotency-key": "push-e2e-1" })).toBe(200);
    expect(await send("push", push, { "idempotency-key": "push-e2e-1" })).toBe(200);
    const page = await freshPage();
    const list = new DeliveriesPage(page, gw.baseUrl);
    await list.open("?hook=github-signed");
    const rows = list.rows();
    await expect(rows.locator(".event").allInnerTexts()).resolves.toEqual(["push", "push", "pull_request.opened"]);
    await expect(rows.nth(0).locator(".badge").allInnerTexts()).resolves.toEqual(["repeat"]);
    await expect(rows.nth(1).locator(".badge").count()).resolves.toBe(0);
    await Promise.all([page.waitForURL(/\/ui\/deliveries\/[^/?]+$/), rows.nth(2).locator("td.what a").click()]);
    await expect(page.locator("#delivery-event").innerText()).resolves.toBe("pull_request.opened");
    // The curl shows the signature as the ledger keeps it (never its value, never a variable named after it).
    const curl = await page.locator("#curl").innerText();
    expect(curl).toContain(`-H 'x-hub-signature-256: [REDACTED]'`);
    expect(curl).toContain(`-H 'authorization: Bearer '"\${HOOK_TOKEN:?export HOOK_TOKEN first}"`);
    expect(curl).not.toContain("X_HUB_SIGNATURE_256");
    expect(curl).not.toMatch(/sha256=[0-9a-f]{64}/);
  });

  it("paths under /ui that are not valid percent-encoding answer 4xx, for anonymous clients too, and leave no error-level log line (regression: 500 internal_error logged at error level)", async () => {
    const anonymous = async (path: string) => (await fetch(`${gw.baseUrl}${path}`)).status;
    expect(await anonymous("/ui/assets/%E0")).toBe(400);
    expect(await anonymous("/ui/deliveries/%E0%A4%A")).toBe(401);
    const page = await freshPage();
    for (const path of ["/ui/assets/%E0", "/ui/deliveries/%E0%A4%A"]) expect((await page.request.get(`${gw.baseUrl}${path}`)).status()).toBe(400);
    const entries = gw
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { level?: string; message?: string });
    expect(entries.some((e) => e.message === "gateway started")).toBe(true);
    expect(entries.filter((e) => e.level === "error")).toEqual([]);
  });
});
