/**
 * Against the real `gateway` process: `npm start` next to a running OpenClaw (same default
 * port) printed six JSON log lines, then "invalid config: gateway.port … is already in use"
 * (it is not a config error) and nothing said how to pick another port. A busy port is now
 * one line naming the port and the way out, exit 1, nothing on stdout, and no state touched.
 * Following that way out (`--port N`) in the same folder while the first gateway runs started
 * a second gateway on the same state dir; that is one line and exit 1 too.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { makeGatewayDir, runGatewayCli, startGateway } from "../helpers/gateway-process";

let blocker: net.Server;
let port: number;
let dir: string;
beforeEach(async () => {
  dir = makeGatewayDir("gw-busy-");
  blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  port = (blocker.address() as net.AddressInfo).port;
});
afterEach(async () => {
  await new Promise<void>((resolve) => blocker.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

it("a start on a busy port prints one line naming the port and --port, exits 1, and loads no plugin (was: six JSON log lines and 'invalid config')", async () => {
  const configPath = path.join(dir, "gateway.config.json");
  fs.writeFileSync(configPath, JSON.stringify({ gateway: { port }, hooks: { enabled: true, token: "0123456789abcdef0123" } }));
  const r = await runGatewayCli(["start", "--config", configPath], { cwd: dir });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr).toBe(
    `gateway: port ${port} on 127.0.0.1 is already in use (another gateway or OpenClaw?); start on another port with \`npm start -- --port N\` (or \`gateway start --port N\`), or set gateway.port in ${configPath}\n`,
  );
  // Nothing started: no plugin store was opened and no journal line written.
  expect(fs.existsSync(path.join(dir, ".gateway", "data"))).toBe(false);
  expect(fs.existsSync(path.join(dir, ".gateway", "journal.jsonl"))).toBe(false);
});

it("the demo default on a busy port says where to set the port (no config file exists)", async () => {
  const r = await runGatewayCli(["start", "--port", String(port)], { cwd: dir });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr.trim().split("\n")).toEqual([
    `gateway: port ${port} on 127.0.0.1 is already in use (another gateway or OpenClaw?); start on another port with \`npm start -- --port N\` (or \`gateway start --port N\`), or set gateway.port in a gateway.config.json`,
  ]);
});

it("a second start on the state dir of a running gateway (another port, same folder) prints one line and exits 1; after a kill -9 the next start takes over (was: two gateways sharing one store and main session)", async () => {
  const first = await startGateway({ dir, demo: true });
  try {
    const r = await runGatewayCli(["start", "--port", "0"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `gateway: the state dir ${path.join(dir, ".gateway")} is in use by another gateway (pid ${first.child.pid}); stop that one first, or give this one its own gateway.stateDir (if no gateway runs there, delete ${path.join(dir, ".gateway", "gateway.lock")})\n`,
    );
    expect(first.journal().filter((e) => e.type === "gateway" && e.phase === "started")).toHaveLength(1);
  } finally {
    await first.kill9();
  }
  const next = await startGateway({ dir, demo: true });
  expect(await next.stop()).toBe(0);
});
