/**
 * The `gateway` CLI's own errors (docs/gateway.md, "CLI"): one line on stderr,
 * `gateway: …`, control characters escaped — also for a mistyped command line,
 * which commander reports.
 */
import { main } from "../../../src/gateway/cli/main";

async function run(...args: string[]): Promise<{ code: number; err: string[]; out: string[] }> {
  const err: string[] = [];
  const out: string[] = [];
  const code = await main(["node", "gateway", ...args], { err: (l) => err.push(l), out: (l) => out.push(l), env: {}, cwd: __dirname });
  return { code, err, out };
}

describe("gateway CLI command-line errors", () => {
  it("an unknown option is reported as gateway: …, with the usage hint, and exit 1 (was: commander's bare error: …)", async () => {
    const r = await run("start", "--bogus");
    expect(r).toEqual({ code: 1, out: [], err: ["gateway: unknown option '--bogus'", "(run with --help for usage)"] });
  });

  it("a control character in a mistyped argument is escaped, never written to the terminal raw", async () => {
    const r = await run("start", "--x\u001b[31mq");
    expect(r.code).toBe(1);
    expect(r.err.join("\n")).not.toContain("\u001b");
    expect(r.err[0]).toMatch(/^gateway: unknown option '--x.+\[31mq'$/);
  });
});
