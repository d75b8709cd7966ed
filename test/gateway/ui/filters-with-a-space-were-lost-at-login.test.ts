/**
 * Regression: a page opened without a session answers the login form, which sends the
 * browser back to that page after login (`next`). A search with two words
 * (`?search=deal+won`, as the filter form writes it) or any `+`, `,`, `:` … in the query
 * was not accepted as a `next`, so the operator landed on the bare Deliveries page with
 * the filters gone.
 */
import request from "supertest";
import { OPERATOR_TOKEN, uiApp } from "../../helpers/ui-app";

describe("logging in from a filtered page", () => {
  it("returns to the page with its filters: a two-word search, a status class and a time window", async () => {
    const { app } = uiApp();
    const page = "/ui/deliveries?search=deal+won&hook=crm%3Aeu&status=4xx&since=1h";
    const form = await request(app).get(page);
    expect(form.status).toBe(401);
    const next = /name="next" value="([^"]*)"/.exec(form.text)?.[1]?.replace(/&amp;/g, "&");
    expect(next).toBe(page);
    const login = await request(app)
      .post("/ui/login")
      .set("Host", "127.0.0.1")
      .set("Origin", "http://127.0.0.1")
      .type("form")
      .send({ token: OPERATOR_TOKEN, next });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe(page);
  });

  it("still never leaves the dashboard: another host or a path outside /ui/ goes to the Deliveries page", async () => {
    const { app } = uiApp();
    for (const next of ["//evil.example/ui/x", "https://evil.example/ui/", "/ui//evil.example", "/api/status", "/ui/\\evil"]) {
      const login = await request(app)
        .post("/ui/login")
        .set("Host", "127.0.0.1")
        .set("Origin", "http://127.0.0.1")
        .type("form")
        .send({ token: OPERATOR_TOKEN, next });
      expect(login.headers.location).toBe("/ui/deliveries");
    }
  });
});
