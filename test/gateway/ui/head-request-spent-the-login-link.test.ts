/**
 * Regression: a HEAD request for the one-time login link (`HEAD /ui/login?code=…`:
 * a link checker, a chat or mail client probing the URL) spent the code and set a
 * session cookie on the prober, so the person who then opened the link was told
 * it "was used already". HEAD is safe: it gets the login form's headers and
 * spends, counts and sets nothing; the GET after it logs in.
 */
import request from "supertest";
import { createLoginCodes } from "../../../src/gateway/ui/login-codes";
import { NOW, uiApp } from "../../helpers/ui-app";

describe("HEAD on the one-time login link", () => {
  it("spends nothing: no cookie, and the link still logs the browser in afterwards", async () => {
    const codes = createLoginCodes({ now: () => NOW });
    const { code } = codes.issue();
    const { app } = uiApp({ loginCodes: codes });
    const head = await request(app).head(`/ui/login?code=${code}`);
    expect(head.status).toBe(200);
    expect(head.headers["set-cookie"]).toBeUndefined();
    const get = await request(app).get(`/ui/login?code=${code}`);
    expect(get.status).toBe(303);
    expect(get.headers.location).toBe("/ui/deliveries");
    expect(String(get.headers["set-cookie"]?.[0])).toMatch(/^gw_ui_session=/);
  });

  it("is not counted as a wrong code: five HEADs with a wrong code leave the address unthrottled", async () => {
    const codes = createLoginCodes({ now: () => NOW });
    const { code } = codes.issue();
    const { app } = uiApp({ loginCodes: codes });
    for (let i = 0; i < 5; i++) expect((await request(app).head("/ui/login?code=not-a-code")).status).toBe(200);
    expect((await request(app).get(`/ui/login?code=${code}`)).status).toBe(303);
  });
});
