import fs from "node:fs";
import path from "node:path";
import type { MappingConfig } from "../../../src/config/types";
import { createMappingEngine, type MappingEngine } from "../../../src/mappings/engine";
import type { MappedHookInput } from "../../../src/core/ports";
import { captureLogger, fixedClock, hookInput, makeConfig, mapping, readPayload, tempDir, TRANSFORM_FIXTURES } from "../helpers";

const push = readPayload("github-push.json");

function engineFor(mappings: MappingConfig[], extra: Parameters<typeof makeConfig>[0] = {}) {
  const logger = captureLogger();
  const engine = createMappingEngine({ config: makeConfig({ mappings, ...extra }), presets: [], logger, clock: fixedClock });
  return { engine, logger };
}

async function action(engine: MappingEngine, input: MappedHookInput) {
  const r = await engine.resolve(input);
  if (!r.ok) throw new Error(`unexpected ${r.error.code}`);
  if (r.value.kind !== "action") throw new Error(`unexpected ${r.value.kind}`);
  return r.value;
}

/**
 * A transform `t.js` in `dir` loads; then it is replaced by `link(outside file, t.js)`
 * and the next request is refused as transform_failed with `cause` in the log.
 */
async function expectReplacedModuleRefused(dir: string, link: (target: string, file: string) => void, cause: string): Promise<void> {
  const outside = tempDir();
  try {
    fs.writeFileSync(path.join(outside, "evil.js"), 'export default () => ({ message: "evil" });\n');
    const module = path.join(dir, "t.js");
    fs.writeFileSync(module, 'export default () => ({ message: "good" });\n');
    const { engine, logger } = engineFor([mapping({ id: "t", transform: { module: "t.js" } })], { transformsDir: dir });
    expect((await action(engine, hookInput("x", {}))).raw.message).toBe("good");
    fs.rmSync(module);
    link(path.join(outside, "evil.js"), module);
    const r = await engine.resolve(hookInput("x", {}));
    expect(r.ok ? r.value : r.error.code).toBe("transform_failed");
    expect(logger.at("error")[0].meta).toMatchObject({ reason: "load_failed", cause });
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }
}

describe("transforms (SPEC §6.3)", () => {
  test("a .js transform (ESM syntax) changes the agent action", async () => {
    const { engine } = engineFor([mapping({ id: "gh", match: { path: "github" }, messageTemplate: "unused", transform: { module: "github-push.js" } })]);
    const out = await action(engine, hookInput("github", push, { headers: { "x-github-event": "push" } }));
    expect(out.raw).toEqual({
      kind: "agent",
      name: "GitHub",
      sessionKey: "hook:github:ada-lab/garden-sensors",
      message:
        "2 commit(s) pushed to ada-lab/garden-sensors on main:\n- Calibrate soil moisture sensor offsets (ada-moreau)\n- Add weekly watering report (ada-moreau)",
    });
  });

  test("a .ts transform importing defineTransform from the package switches to a wake action", async () => {
    const { engine } = engineFor([mapping({ id: "sensors", messageTemplate: "unused", transform: { module: "summarize.ts" } })]);
    const out = await action(
      engine,
      hookInput("garden", {
        readings: [
          { sensor: "bed-3", value: 41, unit: "%" },
          { sensor: "bed-4", value: 12 },
        ],
      }),
    );
    expect(out.raw).toEqual({ kind: "wake", mode: "next-heartbeat", text: "Readings from garden (sensors): bed-3=41%, bed-4=12" });
  });

  test("a .ts transform importing a Node built-in and the package helper works", async () => {
    const { engine } = engineFor([mapping({ id: "orders", messageTemplate: "Order {{ orderId }}", transform: { module: "digest.ts" } })]);
    const out = await action(engine, hookInput("orders", { orderId: "A-1001" }));
    expect(out.raw).toEqual({ kind: "agent", message: "Order A-1001", name: "orders", sessionKey: "hook:orders:0b1336d9f2ad" });
  });

  test("null skips the request", async () => {
    const { engine } = engineFor([mapping({ id: "quiet", transform: { module: "skip.js" } })]);
    expect(await engine.resolve(hookInput("x", {}))).toEqual({ ok: true, value: { kind: "skip", mappingId: "quiet" } });
  });

  test("the github transform skips events other than push", async () => {
    const { engine } = engineFor([mapping({ id: "gh", transform: { module: "github-push.js" } })]);
    expect(await engine.resolve(hookInput("github", push, { headers: { "x-github-event": "ping" } }))).toEqual({
      ok: true,
      value: { kind: "skip", mappingId: "gh" },
    });
  });

  test("every override field is merged over the mapping's action", async () => {
    const { engine } = engineFor([
      mapping({ id: "o", name: "Mapped", channel: "last", deliver: true, messageTemplate: "kept {{ a }}", transform: { module: "override-all.ts" } }),
    ]);
    const out = await action(engine, hookInput("o", { a: 1 }));
    expect(out).toEqual({
      kind: "action",
      mappingId: "o",
      allowUnsafeExternalContent: true,
      raw: {
        kind: "agent",
        message: "kept 1",
        name: "Overridden",
        sessionKey: "hook:override",
        wakeMode: "next-heartbeat",
        deliver: false,
        channel: "bot_chat",
        to: "12345",
        model: "openai/gpt-4o-mini",
        thinking: "low",
        timeoutSeconds: 30,
      },
    });
  });

  test("a throwing transform is transform_failed with no detail in the error; the cause is logged with the mapping id", async () => {
    const { engine, logger } = engineFor([mapping({ id: "boom", transform: { module: "throws.cjs" } })]);
    const r = await engine.resolve(hookInput("x", { secret: "payload-value-never-logged" }, { requestId: "req-77" }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("transform_failed");
    expect(r.error.status).toBe(500);
    expect(r.error.toBody()).toEqual({ ok: false, code: "transform_failed", error: "The hook's transform failed." });
    const line = logger.at("error")[0];
    expect(line.message).toBe("transform failed");
    expect(line.meta).toEqual({
      mappingId: "boom",
      module: "throws.cjs",
      export: undefined,
      reason: "threw",
      cause: "Error: boom: the upstream schema changed",
      requestId: "req-77",
    });
    expect(JSON.stringify(logger.lines)).not.toContain("payload-value-never-logged");
  });

  test("a transform that never resolves fails after hooks.transformTimeoutMs", async () => {
    const { engine, logger } = engineFor([mapping({ id: "slow", transform: { module: "never.mjs" } })], { transformTimeoutMs: 100 });
    const r = await engine.resolve(hookInput("x", {}));
    expect(r.ok ? r.value : r.error.code).toBe("transform_failed");
    expect(logger.at("error")[0].meta).toMatchObject({
      mappingId: "slow",
      reason: "timeout",
      cause: "the transform did not finish within 100 ms (hooks.transformTimeoutMs, shared by every transform call of the request)",
    });
  });

  test.each([
    ["array", "the result must be an object, null or undefined, not an array"],
    ["unknownKey", 'unknown field "extra" in the result'],
    ["wrongType", 'field "deliver" must be a boolean, not string'],
    ["text", "the result must be an object, null or undefined, not string"],
    ["badKind", 'field "kind" must be "wake" or "agent"'],
  ])("an invalid result (%s) is transform_failed", async (exportName, cause) => {
    const { engine, logger } = engineFor([mapping({ id: "bad", transform: { module: "invalid-results.js", export: exportName } })]);
    const r = await engine.resolve(hookInput("x", {}));
    expect(r.ok ? r.value : r.error.code).toBe("transform_failed");
    expect(logger.at("error")[0].meta).toMatchObject({ reason: "invalid_result", cause });
  });

  test.each([
    ["throwingGetter", "reading the result threw Error: getter boom"],
    ["throwingProxy", "reading the result threw Error: proxy boom"],
  ])(
    "a result that throws when it is read (%s) is transform_failed (regression: it was 500 internal_error, 'mapping failed unexpectedly')",
    async (exportName, cause) => {
      const { engine, logger } = engineFor([mapping({ id: "bad", transform: { module: "invalid-results.js", export: exportName } })]);
      const r = await engine.resolve(hookInput("x", {}));
      expect(r.ok ? r.value : r.error.code).toBe("transform_failed");
      expect(logger.at("error")[0].meta).toMatchObject({ reason: "invalid_result", cause });
    },
  );

  // Regression: describing a thrown value that cannot become text (a message without toString, a throwing
  // getter or Proxy trap) threw again, so the request was 500 internal_error, "mapping failed unexpectedly".
  test.each([
    ["messageWithoutText", "thrown value that cannot be described"],
    ["messageGetter", "thrown value that cannot be described"],
    ["trappedProxy", "thrown value that cannot be described"],
    ["rejectsWithNullPrototype", "thrown value that cannot be described"],
    ["symbol", "non-error value thrown: symbol"],
  ])("a transform that throws an odd value (%s) is 500 transform_failed, the cause logged", async (exportName, cause) => {
    const { engine, logger } = engineFor([mapping({ id: "odd", transform: { module: "odd-throws.js", export: exportName } })]);
    const r = await engine.resolve(hookInput("x", {}));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect([r.error.status, r.error.code]).toEqual([500, "transform_failed"]);
    expect(logger.at("error")[0].meta).toMatchObject({ mappingId: "odd", reason: "threw", cause: expect.stringContaining(cause) });
  });

  test("an export that is missing or not a function is transform_failed", async () => {
    const { engine, logger } = engineFor([
      mapping({ id: "nf", match: { path: "nf" }, transform: { module: "invalid-results.js", export: "notAFunction" } }),
      mapping({ id: "missing", match: { path: "missing" }, transform: { module: "invalid-results.js" } }),
    ]);
    for (const name of ["nf", "missing"]) {
      const r = await engine.resolve(hookInput(name, {}));
      expect(r.ok ? r.value : r.error.code).toBe("transform_failed");
    }
    expect(logger.at("error").map((l) => l.meta?.cause)).toEqual([
      'Error: transform module "invalid-results.js" has no function export "notAFunction"',
      'Error: transform module "invalid-results.js" has no function "default" or "transform" export',
    ]);
  });

  test("the transform context has no credentials; url has no token; now and mapping id are set", async () => {
    const { engine } = engineFor([mapping({ id: "echo", transform: { module: "context-echo.js" } })]);
    const out = await action(
      engine,
      hookInput(
        "echo",
        {},
        {
          headers: {
            authorization: "Bearer secret-token-value-123456",
            "x-service-token": "secret",
            "x-hub-signature-256": "sha256=1",
            cookie: "a=b",
            "x-github-event": "push",
          },
          query: { token: "secret", page: "2" },
          url: "/hooks/echo?token=secret&page=2",
        },
      ),
    );
    expect(JSON.parse(String(out.raw.message))).toEqual({
      headers: { "x-github-event": "push" },
      query: { page: "2" },
      path: "echo",
      url: "/hooks/echo?page=2",
      now: "2025-03-14T09:30:00.000Z",
      mapping: { id: "echo" },
    });
  });

  test("two exports of one module are cached separately, and the module is evaluated once", async () => {
    const { engine } = engineFor([
      mapping({ id: "one", match: { path: "one" }, transform: { module: "two-exports.ts", export: "first" } }),
      mapping({ id: "two", match: { path: "two" }, transform: { module: "two-exports.ts", export: "second" } }),
    ]);
    const messages: unknown[] = [];
    for (const name of ["one", "two", "one", "two"]) messages.push((await action(engine, hookInput(name, {}))).raw.message);
    expect(messages).toEqual(["first (module calls: 1)", "second (module calls: 2)", "first (module calls: 3)", "second (module calls: 4)"]);
  });

  describe("reload on change", () => {
    let dir: string;
    beforeEach(() => {
      dir = tempDir();
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    test.each(["live.js", "live.ts"])("editing %s changes the next result without a restart", async (file) => {
      const module = path.join(dir, file);
      fs.writeFileSync(module, 'export default () => ({ message: "version 1" });\n');
      const { engine } = engineFor([mapping({ id: "live", transform: { module: file } })], { transformsDir: dir });
      expect((await action(engine, hookInput("x", {}))).raw.message).toBe("version 1");
      expect((await action(engine, hookInput("x", {}))).raw.message).toBe("version 1");
      // Same size on purpose: the change must be seen even when only the content differs.
      fs.writeFileSync(module, 'export default () => ({ message: "version 2" });\n');
      expect((await action(engine, hookInput("x", {}))).raw.message).toBe("version 2");
    });

    test("a module that fails to load is retried on the next request once fixed", async () => {
      const module = path.join(dir, "broken.js");
      fs.writeFileSync(module, "export default () => ({ message: ;\n");
      const { engine, logger } = engineFor([mapping({ id: "broken", transform: { module: "broken.js" } })], { transformsDir: dir });
      const r = await engine.resolve(hookInput("x", {}));
      expect(r.ok ? r.value : r.error.code).toBe("transform_failed");
      expect(logger.at("error")[0].meta).toMatchObject({ reason: "load_failed" });
      fs.writeFileSync(module, 'export default () => ({ message: "fixed" });\n');
      expect((await action(engine, hookInput("x", {}))).raw.message).toBe("fixed");
    });

    test("a module replaced by a symlink to outside its directory is refused at the next request", async () => {
      await expectReplacedModuleRefused(dir, fs.symlinkSync, 'Error: transform module "t.js" now resolves outside its directory');
    });
  });

  test("a module replaced by a hard link to a file outside its directory is refused at the next request", async () => {
    const dir = tempDir();
    try {
      await expectReplacedModuleRefused(dir, fs.linkSync, 'Error: transform module "t.js" is now a hard link (more than one link)');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the fixtures directory is what the default helper config points at", () => {
    expect(fs.existsSync(path.join(TRANSFORM_FIXTURES, "github-push.js"))).toBe(true);
  });
});
