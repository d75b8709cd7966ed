/**
 * The demo start (SPEC §2.2): with no config file the gateway starts
 * on the demo default, prints the generated hook token once with a curl line
 * that works, and the journal shows the system event and a heartbeat. The
 * dashboard is on: each start prints a one-time login link that opens the
 * deliveries page (regression: /ui answered 403 in the demo).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeGatewayDir } from "../helpers/gateway-process";
import { gatewayPerTest } from "./gateway-setup";

describe("gateway e2e: demo default", () => {
  const gateway = gatewayPerTest();

  it("prints the token once and a curl line that works; later starts point at the token file", async () => {
    const dir = makeGatewayDir("gw-demo-");
    let gw = await gateway.start({ dir, demo: true });
    const out = gw.stdout();
    const tokenFile = path.join(dir, ".gateway", "hook-token");
    const token = fs.readFileSync(tokenFile, "utf8").trim();
    expect(out).toContain(`hook token (generated, stored in ${tokenFile}; shown only this once): ${token}`);
    const curl = /^try: (curl .+)$/m.exec(out)![1]!;
    expect(curl).toBe(`curl -X POST -H "Authorization: Bearer ${token}" -d '{"text":"hello"}' ${gw.baseUrl}/hooks/wake`);
    expect(out).toMatch(/^plugin: inbound-webhooks \S+ \(builtin\) active$/m);

    // Run the printed command as a user would (through a shell).
    const body = execFileSync("sh", ["-c", `${curl} -s -w ' %{http_code}'`], { encoding: "utf8" });
    expect(body).toBe('{"ok":true,"mode":"now"} 200');
    await gw.waitForJournal((e) => e.type === "system_event" && e.sessionKey === "main" && String(e.text).includes("hello"));
    await gw.waitForJournal((e) => e.type === "heartbeat" && e.reason === "hook:wake");
    expect(await gw.stop()).toBe(0);

    gw = await gateway.start({ dir, demo: true });
    expect(gw.stdout()).not.toContain(token);
    expect(gw.stdout()).toContain(`hook token: stored in ${tokenFile}`);
    const again = /^try: (curl .+)$/m.exec(gw.stdout())![1]!;
    expect(execFileSync("sh", ["-c", `${again} -s -w ' %{http_code}'`], { encoding: "utf8" })).toBe('{"ok":true,"mode":"now"} 200');
  });

  it("a later start's curl line works from a folder whose path has a space (was: $(cat /tmp/my dir/…) split by the shell)", async () => {
    const dir = makeGatewayDir("gw demo with spaces-");
    expect(await (await gateway.start({ dir, demo: true })).stop()).toBe(0);
    const gw = await gateway.start({ dir, demo: true });
    const again = /^try: (curl .+)$/m.exec(gw.stdout())![1]!;
    expect(execFileSync("sh", ["-c", `${again} -s -w ' %{http_code}'`], { encoding: "utf8" })).toBe('{"ok":true,"mode":"now"} 200');
  });
});

describe("gateway e2e: the demo's dashboard", () => {
  const gateway = gatewayPerTest();

  /** The login link a start printed. */
  const linkOf = (stdout: string): string => {
    const m =
      /^dashboard: (http:\/\/\S+\/ui\/login\?code=[A-Za-z0-9_-]{43}) \(one-time login link: opens the deliveries page; single use, valid 5 minutes\)$/m.exec(
        stdout,
      );
    expect(m).not.toBeNull();
    return m![1]!;
  };

  it("npm start prints a one-time link that opens /ui straight to the deliveries page, never the operator token; a restart prints a new one", async () => {
    const dir = makeGatewayDir("gw-demo-ui-");
    let gw = await gateway.start({ dir, demo: true });
    const operatorFile = path.join(dir, ".gateway", "operator-token");
    const operatorToken = fs.readFileSync(operatorFile, "utf8").trim();
    expect(fs.statSync(operatorFile).mode & 0o777).toBe(0o600);
    expect(gw.stdout()).not.toContain(operatorToken);
    expect(gw.stdout()).toContain(`operator token (dashboard login, /metrics, /api/*): stored in ${operatorFile}`);
    const link = linkOf(gw.stdout());
    expect(link.startsWith(`${gw.baseUrl}/ui/login?code=`)).toBe(true);

    const opened = await fetch(link, { redirect: "manual" });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe("/ui/deliveries");
    const cookie = (opened.headers.get("set-cookie") ?? "").split(";")[0]!;
    const page = await fetch(`${gw.baseUrl}/ui/deliveries`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Log out");
    expect((await fetch(link, { redirect: "manual" })).status).toBe(401); // single use
    expect((await fetch(`${gw.baseUrl}/metrics`, { headers: { authorization: `Bearer ${operatorToken}` } })).status).toBe(200);
    expect(await gw.stop()).toBe(0);

    gw = await gateway.start({ dir, demo: true });
    const second = linkOf(gw.stdout());
    expect(second).not.toBe(link);
    expect(fs.readFileSync(operatorFile, "utf8").trim()).toBe(operatorToken); // kept across starts
    expect((await fetch(second, { redirect: "manual" })).status).toBe(303);
  });
});
