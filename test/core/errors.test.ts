import fs from "node:fs";
import path from "node:path";
import { ERROR_STATUS, HOOK_ERROR_CATALOGUE, HookError, hookErrors, type ErrorCode, type HookErrorEntry } from "../../src/core/errors";

const ROOT = path.join(__dirname, "..", "..");

describe("the hook error catalogue", () => {
  const entries = Object.entries(HOOK_ERROR_CATALOGUE) as Array<[string, HookErrorEntry]>;

  it("gives every entry its code's status, and every code at least one entry", () => {
    for (const [name, entry] of entries) expect([name, entry.status]).toEqual([name, ERROR_STATUS[entry.code]]);
    const used = new Set(entries.map(([, e]) => e.code));
    expect(Object.keys(ERROR_STATUS).filter((c) => !used.has(c as ErrorCode))).toEqual([]);
  });

  it("does not compile an entry whose status is not its code's", () => {
    // @ts-expect-error: not_found is 404
    const wrong: HookErrorEntry = { code: "not_found", status: 400, message: "No such hook." };
    expect(wrong.code).toBe("not_found");
  });

  it("fills the template and takes code and status from the entry", () => {
    const e = hookErrors.bodyTooLarge({ limit: 1024 });
    expect(e).toBeInstanceOf(HookError);
    expect(e.toBody()).toEqual({ ok: false, code: "payload_too_large", error: "The request body is larger than hooks.maxBodyBytes allows (1024 bytes)." });
    expect(e.status).toBe(413);
    // @ts-expect-error: the template needs {limit}
    expect(() => hookErrors.bodyTooLarge()).toThrow("error template bodyTooLarge needs {limit}");
  });

  it("keeps the cause for the log and out of the body", () => {
    const cause = new Error(`EACCES ${ROOT}/state/runs.db`);
    const e = hookErrors.runNotStored({ cause });
    expect(e.cause).toBe(cause);
    expect(JSON.stringify(e.toBody())).toBe('{"ok":false,"code":"internal_error","error":"The run could not be stored, so it was not accepted; retry later."}');
  });

  it("carries response headers without putting them in the body", () => {
    const e = hookErrors.overloaded({ maxQueued: 3 }, { headers: { "Retry-After": "30" } });
    expect(e.headers).toEqual({ "Retry-After": "30" });
    expect(e.toBody()).toEqual({ ok: false, code: "overloaded", error: "Too many runs are queued (hooks.runs.maxQueued is 3); retry later." });
  });

  it("an entry about one field lists itself in details; given details replace that", () => {
    const message = "sessionKey must not address the main session.";
    expect(hookErrors.sessionKeyIsMainSession().toBody()).toEqual({
      ok: false,
      code: "invalid_payload",
      error: message,
      details: [{ field: "sessionKey", message }],
    });
    const details = [{ field: "messages", message: "messages must be an array of mail messages" }];
    expect(hookErrors.mailPushInvalid({ details }).toBody()).toEqual({ ok: false, code: "invalid_payload", error: "The mail push is invalid.", details });
    expect(hookErrors.mailPushInvalid({ details: [] }).toBody()).toEqual({ ok: false, code: "invalid_payload", error: "The mail push is invalid." });
  });

  it("is listed in docs/errors.md, every template verbatim", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs", "errors.md"), "utf8");
    const missing = entries.filter(([name, e]) => !doc.includes(`| \`${name}\` | \`${e.code}\` | \`${e.message}\` |`)).map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it("docs/errors.md's codes table lists every code with its status, and no code that does not exist", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs", "errors.md"), "utf8");
    const codesTable = doc.slice(doc.indexOf("The codes and their statuses:"), doc.indexOf("### Messages"));
    const documented = Object.fromEntries([...codesTable.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]));
    expect(documented).toEqual(ERROR_STATUS);
  });

  it("docs/endpoints.md's status codes at a glance list every code under its status", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs", "endpoints.md"), "utf8");
    const glance = doc.slice(doc.indexOf("## Status codes at a glance"));
    const listed: Record<string, number> = {};
    for (const row of glance.matchAll(/^\| (\d{3}) \| (.*) \|$/gm)) for (const code of row[2]!.matchAll(/`([a-z_]+)`/g)) listed[code[1]!] = Number(row[1]);
    expect(listed).toEqual(ERROR_STATUS);
  });
});

/** Every `src/` file, relative to the repository root. */
function sourceFiles(dir = path.join(ROOT, "src")): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    return d.isDirectory() ? sourceFiles(full) : d.name.endsWith(".ts") ? [path.relative(ROOT, full)] : [];
  });
}

describe("coded errors are made from their catalogues", () => {
  it.each([
    ["HookError", "src/core/errors.ts"],
    ["MailError", "src/mail/mail-error.ts"],
    ["CliError", "src/gateway/cli/cli-error.ts"],
    ["DryRunCommandError", "src/cli/dry-run-failure.ts"],
  ])("no module but its catalogue writes new %s(…)", (name, home) => {
    const builders = sourceFiles().filter((f) => fs.readFileSync(path.join(ROOT, f), "utf8").includes(`new ${name}(`));
    expect(builders).toEqual([home]);
  });
});
