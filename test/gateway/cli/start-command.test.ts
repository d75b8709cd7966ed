/**
 * `gateway start`'s start-up lines on stdout: what a plugin's manifest says (its version, the
 * reason it is broken) reaches the operator's terminal, so each line follows the terminal-safety
 * rule (SPEC §9) as the other CLI output does.
 */
import type { LoadedConfig } from "../../../src/gateway/config/load-config";
import type { RunningGateway } from "../../../src/gateway/gateway";
import { printStartup } from "../../../src/gateway/cli/start-command";

function gatewayWith(plugins: RunningGateway["plugins"]): RunningGateway {
  return { url: "http://127.0.0.1:40000", port: 40000, plugins, routes: [], loginLink: () => undefined } as unknown as RunningGateway;
}

const loaded = { config: { configPath: "/tmp/gw/gateway.config.json", stateDir: "/tmp/gw/.gateway" }, located: { from: "flag" } } as unknown as LoadedConfig;

describe("gateway start: start-up lines", () => {
  it("a plugin whose manifest holds an escape sequence wrote it raw to the terminal in its plugin: line; now escaped", () => {
    const lines: string[] = [];
    const gw = gatewayWith([
      {
        dir: "/tmp/gw/p",
        origin: "path",
        status: "broken",
        version: "1.0\u001b]0;PWNED\u0007",
        reason: 'plugin.json: version "1.0\u001b]0;PWNED\u0007" is not a semver version',
      },
    ]);
    printStartup(
      gw,
      loaded,
      (l) => lines.push(l),
      () => undefined,
    );
    expect(lines.join("\n")).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(lines).toContain('plugin: /tmp/gw/p 1.0\\x1b]0;PWNED\\x07 (path) broken: plugin.json: version "1.0\\x1b]0;PWNED\\x07" is not a semver version');
    expect(lines[lines.length - 1]).toBe("listening: http://127.0.0.1:40000");
  });
});
