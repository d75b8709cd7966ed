/**
 * SPEC §4.2 and §9: no response body contains a stack trace, a
 * token or a filesystem path. One assertion for every kind of test that reads
 * response bodies (router, gateway app, end to end).
 */
import { tmpdir } from "node:os";

/** Asserts the body carries none of `secrets`, no stack frame and no filesystem path. */
export function expectCleanBody(body: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(body).not.toContain(secret);
  expect(body).not.toMatch(/\n\s+at\s/); // stack frame
  expect(body).not.toMatch(/\bat .*\.(ts|js):\d+/);
  expect(body).not.toContain(process.cwd());
  expect(body).not.toContain(tmpdir());
  expect(body).not.toContain("node_modules");
  expect(body).not.toMatch(/(^|[\s"'(])\/(work|home|tmp|usr|var|etc|srv|opt|root)\//);
}
