/**
 * The demo start (SPEC §2.2): with no config file the gateway starts
 * on the demo default, prints the generated hook token once with a curl line
 * that works, and the journal shows the system event and a heartbeat.
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
});
