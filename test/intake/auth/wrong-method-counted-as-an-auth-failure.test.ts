/**
 * Regression (issue 22 item 10): a 405 answered before the token is compared
 * counted as an authentication failure, so 21 `GET /hooks/wake` with a wrong token
 * got 429 and then locked the address out of its correct POSTs. SPEC §4.1: a request
 * answered 405 or 404 before its token is compared does not count.
 *
 * The whole plugin on the fake host, through its HTTP route.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

const WRONG = { Authorization: "Bearer wrong-token-wrong-token-wrong" };

describe("a wrong method was counted as an auth failure (issue 22 item 10)", () => {
  let h: PluginApp;
  beforeEach(async () => {
    h = await startPluginApp({ hooks: { rateLimit: { enabled: false } } });
  });
  afterEach(() => h.close());

  it("21 GET /hooks/wake with a wrong token are all 405; then a correct POST is 200 and a wrong one is 401, not 429", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await request(h.app).get("/hooks/wake").set(WRONG)).status);
    expect(statuses).toEqual(Array(21).fill(405));
    const right = await request(h.app)
      .post("/hooks/wake")
      .set({ Authorization: `Bearer ${TEST_TOKEN}` })
      .send({ text: "disk full" });
    expect(right.status).toBe(200);
    const wrong = await request(h.app).post("/hooks/wake").set(WRONG).send({ text: "disk full" });
    expect([wrong.status, wrong.body.code]).toEqual([401, "unauthorized"]);
  });

  it("21 POSTs to the hooks path itself (404 before any credential) with a wrong token do not count either", async () => {
    for (let i = 0; i < 21; i++) expect((await request(h.app).post("/hooks").set(WRONG).send({})).status).toBe(404);
    const wrong = await request(h.app).post("/hooks/wake").set(WRONG).send({ text: "x" });
    expect(wrong.status).toBe(401);
  });
});
