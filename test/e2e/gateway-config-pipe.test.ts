/**
 * A config given through a pipe — bash process substitution, `--config <(echo '{…}')`,
 * which the gateway sees as /dev/fd/63 — works like a regular file: it is read once,
 * and its relative paths (the state dir) resolve against the current directory, since
 * a pipe has no directory of its own. Runs the real `gateway` with bash.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { GATEWAY_BIN, GATEWAY_NODE, makeGatewayDir } from "../helpers/gateway-process";
import { HOOK_TOKEN } from "./gateway-setup";

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs `script` with bash in `cwd` ($GW is the gateway command); killed after 20 s. */
function bash(script: string, cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd, env: { ...process.env, GW: `${GATEWAY_NODE} ${GATEWAY_BIN}` }, detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid!, "SIGKILL");
    }, 20_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

const MAPPED = {
  hooks: { enabled: true, token: HOOK_TOKEN, mappings: [{ id: "ping", match: { path: "ping" }, action: "wake", textTemplate: "ping {{ n }}" }] },
  agents: { defaults: { heartbeat: { every: "off" } } },
};

describe("a config given through a pipe (--config <(…))", () => {
  jest.setTimeout(30_000);

  it("webhooks test --config <(echo '{…}') answers instead of hanging; the state dir is the current directory's .gateway", async () => {
    const dir = makeGatewayDir();
    fs.writeFileSync(path.join(dir, "body.json"), '{"n":1}');
    const r = await bash(`$GW webhooks test ping --payload body.json --json --config <(echo '${JSON.stringify(MAPPED)}')`, dir);
    expect(r.timedOut).toBe(false);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, hook: "ping", action: { kind: "wake", text: "ping 1" } });
    expect(fs.existsSync(path.join(dir, ".gateway"))).toBe(true);
  });

  it("start --config <(…) with a wrong gateway key also names the plugins' problems (the pipe is read once)", async () => {
    const dir = makeGatewayDir();
    const config = { gateway: { port: "x" }, hooks: { enabled: true } };
    const r = await bash(`$GW start --port 0 --config <(echo '${JSON.stringify(config)}')`, dir);
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "gateway: invalid config /dev/fd/63: gateway.port must be an integer\n" +
        "gateway: invalid config /dev/fd/63: hooks.token is required when hooks.enabled is true\n",
    );
  });
});
