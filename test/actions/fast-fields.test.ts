/**
 * The validators' fast paths agree with joi: for generated bodies — every field
 * drawn from valid values, near misses and wrong types — `validateWake` and
 * `validateAgent` (fast path, joi as fallback) give exactly the result of the
 * joi-only path, errors included.
 */
import fc from "fast-check";
import { validateAgentWithSchema } from "../../src/actions/validate-agent";
import { validateWakeWithSchema } from "../../src/actions/validate-wake";
import { validateAgent, validateWake, type ValidationContext } from "../../src/actions/validate";
import { createFakeHost } from "../helpers/fake-host";
import { resolvedConfig } from "../helpers/resolved-config";

const context = (): ValidationContext => ({
  runtime: createFakeHost({ models: [{ ref: "openai/gpt-4o", alias: "gpt" }], channels: ["bot_chat"] }).api.runtime,
  config: resolvedConfig({ defaultTimeoutSeconds: 600 }),
  idGen: () => "uuid-1",
});

const absent = fc.constant(undefined);
const oddValues = fc.constantFrom<unknown>(null, 0, 1, true, false, [], {}, "", " ", "\t\n", "x".repeat(300));
const text = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(" padded ", "ok", "\u0000ctl", "\u202eflip", " \u3000 "), oddValues);

function body(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const record = fc.record(fields, { requiredKeys: [] }).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));
  return fc.oneof({ weight: 9, arbitrary: record }, { weight: 1, arbitrary: oddValues });
}

describe("validator fast paths", () => {
  it("validateWake gives what joi alone gives, for valid and invalid bodies", () => {
    const wake = body({ text, mode: fc.oneof(absent, fc.constantFrom("now", "next-heartbeat", "later", "NOW"), oddValues), extra: fc.oneof(absent, text) });
    fc.assert(
      fc.property(wake, (raw) => {
        expect(validateWake(raw)).toEqual(validateWakeWithSchema(raw));
      }),
      { numRuns: 2000 },
    );
  });

  it("validateAgent gives what joi alone gives, for valid and invalid bodies", () => {
    const ctx = context();
    const agent = body({
      message: text,
      name: fc.oneof(absent, text, fc.constant("n".repeat(201)), fc.constant(` ${"n".repeat(200)} `)),
      sessionKey: fc.oneof(absent, text, fc.constantFrom("hook:a", " main ", "k".repeat(256), "k".repeat(257), "a\u0007b")),
      wakeMode: fc.oneof(absent, fc.constantFrom("now", "next-heartbeat", "soon"), oddValues),
      deliver: fc.oneof(absent, fc.boolean(), oddValues),
      channel: fc.oneof(absent, fc.constantFrom("last", "bot_chat", "nope"), oddValues),
      to: fc.oneof(absent, absent, absent, fc.constantFrom("+4915123456789", "abc")),
      model: fc.oneof(absent, absent, absent, fc.constantFrom("gpt", "other")),
      thinking: fc.oneof(absent, fc.constantFrom("low", "xhigh", "max"), oddValues),
      timeoutSeconds: fc.oneof(absent, fc.constantFrom(0, -1, 0.5, 120, 86_400, 86_401, Number.MAX_SAFE_INTEGER + 2), oddValues),
    });
    fc.assert(
      fc.property(agent, (raw) => {
        expect(validateAgent(raw, ctx)).toEqual(validateAgentWithSchema(raw, ctx));
      }),
      { numRuns: 3000 },
    );
  });
});
