/**
 * Everything a sender controls — body, header values, hook name, mapping id — is
 * rendered as text: `<script>` comes out as `&lt;script&gt;` on the deliveries
 * list, the delivery page and the dry-run result, never as markup.
 */
import request from "supertest";
import { escapeHtml, html, SafeHtml } from "../../src/host-contract/html";
import { createFakeInspector, delivery } from "../helpers/fake-inspector";
import { OPERATOR_TOKEN, uiApp } from "../helpers/ui-app";

const EVIL = `<script>window.__pwned=1</script><img src=x onerror="alert(1)">`;
const ESCAPED = "&lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;img src=x onerror=&quot;alert(1)&quot;&gt;";

function get(app: ReturnType<typeof uiApp>["app"], path: string) {
  return request(app).get(path).set("Authorization", `Bearer ${OPERATOR_TOKEN}`);
}

describe("the escaping helper", () => {
  it("escapes the five HTML-significant characters", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  });

  it("html`` escapes every interpolation, joins arrays, leaves its own markup and drops null/undefined/false", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(inner).toBeInstanceOf(SafeHtml);
    expect(html`<p title="${'"q"'}">${inner}${["<", html`<br>`]}${null}${undefined}${false}${0}</p>`.value).toBe(
      '<p title="&quot;q&quot;"><b>&lt;i&gt;</b>&lt;<br>0</p>',
    );
  });

  it("a string that looks like SafeHtml is still text", () => {
    expect(html`${{ value: "<script>" }}`.value).toBe("[object Object]");
    expect(html`${"<script>"}`.value).toBe("&lt;script&gt;");
  });
});

describe("sender-controlled text on the pages", () => {
  const d = delivery({
    id: "d-evil",
    hook: EVIL,
    mappingId: EVIL,
    code: EVIL,
    headers: { "content-type": "text/plain", "x-evil": EVIL },
    body: EVIL,
    response: { echo: EVIL },
  });

  it("the deliveries list shows hook, mapping and code as text", async () => {
    const res = await get(uiApp({ inspector: createFakeInspector({ deliveries: [d] }) }).app, "/ui/deliveries");
    expect(res.status).toBe(200);
    expect(res.text).toContain(ESCAPED);
    expect(res.text).not.toContain("<script>window");
    expect(res.text).not.toContain("<img src=x");
  });

  it("the delivery page shows the body, header values and the answer as text", async () => {
    const res = await get(uiApp({ inspector: createFakeInspector({ deliveries: [d] }) }).app, "/ui/deliveries/d-evil");
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<pre id="body" class="text" data-view="pretty">\n${ESCAPED}</pre>`);
    expect(res.text).toContain(`<tr><th scope="row">x-evil</th><td><code>${ESCAPED}</code></td></tr>`);
    expect(res.text).not.toContain("<script>window");
    expect(res.text).not.toContain("<img src=x");
  });

  it("the dry-run result echoes the payload as text", async () => {
    const { app } = uiApp();
    const post = await request(app)
      .post("/ui/mappings/dry-run")
      .set("Authorization", `Bearer ${OPERATOR_TOKEN}`)
      .type("form")
      .send({ hook: EVIL, headers: "", body: EVIL });
    expect(post.status).toBe(303);
    const res = await request(app).get(post.headers.location!).set("Authorization", `Bearer ${OPERATOR_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(ESCAPED);
    expect(res.text).not.toContain("<script>window");
  });
});
