import { renderDefaultContent } from "../../src/mappings/default-content";
import { createMappingEngine } from "../../src/mappings/engine";
import type { MappedHookInput } from "../../src/core/ports";
import { captureLogger, fixedClock, hookInput, makeConfig, mapping, readPayload } from "./helpers";

const push = readPayload("github-push.json");

const credentialHeaders = {
  authorization: "Bearer test-hook-token-0123456789abcdef",
  "x-service-token": "test-hook-token-0123456789abcdef",
  cookie: "session=abc",
  "x-hub-signature": "sha1=deadbeef",
  "x-hub-signature-256": "sha256=deadbeef",
  "x-signature": "s1",
  "x-signature-ed25519": "s2",
  "webhook-signature": "v1,abc",
  "svix-signature": "v1,def",
  "x-gitlab-token": "glt",
  "x-github-event": "push",
  "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
};

function resolveWith(m: Parameters<typeof mapping>[0], input: MappedHookInput) {
  const engine = createMappingEngine({ config: makeConfig({ mappings: [mapping(m)] }), presets: [], logger: captureLogger(), clock: fixedClock });
  return engine.resolve(input);
}

describe("resolve: templates become the raw action", () => {
  test("an agent mapping renders messageTemplate and every templated field", async () => {
    const r = await resolveWith(
      {
        id: "github",
        match: { path: "github" },
        name: "GitHub {{ repository.name }}",
        sessionKey: "hook:github:{{ repository.full_name }}",
        messageTemplate: "{{ pusher.name }} pushed {{ commits[1].message | truncate: 26 }} to {{ repository.full_name }}",
        to: "{{ query.to }}",
        channel: "bot_chat",
        model: '{{ headers.x-model | default: "openai/gpt-4o" }}',
        deliver: false,
        wakeMode: "next-heartbeat",
        thinking: "low",
        timeoutSeconds: 120,
      },
      hookInput("github", push, { query: { to: "4711" } }),
    );
    expect(r).toEqual({
      ok: true,
      value: {
        kind: "action",
        mappingId: "github",
        allowUnsafeExternalContent: false,
        raw: {
          kind: "agent",
          message: "ada-moreau pushed Add weekly watering report… to ada-lab/garden-sensors",
          name: "GitHub garden-sensors",
          sessionKey: "hook:github:ada-lab/garden-sensors",
          wakeMode: "next-heartbeat",
          deliver: false,
          channel: "bot_chat",
          to: "4711",
          model: "openai/gpt-4o",
          thinking: "low",
          timeoutSeconds: 120,
        },
      },
    });
  });

  test("a wake mapping renders textTemplate and its mode", async () => {
    const r = await resolveWith(
      { id: "w", action: "wake", wakeMode: "next-heartbeat", textTemplate: "Push to {{ repository.full_name }} at {{ now }}" },
      hookInput("github", push),
    );
    expect(r).toEqual({
      ok: true,
      value: {
        kind: "action",
        mappingId: "w",
        allowUnsafeExternalContent: false,
        raw: { kind: "wake", text: "Push to ada-lab/garden-sensors at 2025-03-14T09:30:00.000Z", mode: "next-heartbeat" },
      },
    });
  });

  test("optional fields that render empty are left out (defaults apply in validation)", async () => {
    const r = await resolveWith({ id: "m", sessionKey: "{{ payload.user }}", to: "{{ payload.phone }}", messageTemplate: "hi" }, hookInput("x", {}));
    expect(r.ok && r.value.kind === "action" && r.value.raw).toEqual({ kind: "agent", message: "hi", name: "x" });
  });

  test("a templated session key takes the payload value (confinement happens in validation)", async () => {
    const r = await resolveWith({ id: "m", sessionKey: "{{payload.user}}", messageTemplate: "hi" }, hookInput("x", { user: "main" }));
    expect(r.ok && r.value.kind === "action" && r.value.raw.sessionKey).toBe("main");
  });

  test("allowUnsafeExternalContent comes from the mapping", async () => {
    const r = await resolveWith({ id: "m", allowUnsafeExternalContent: true, messageTemplate: "hi" }, hookInput("x", {}));
    expect(r.ok && r.value.kind === "action" && r.value.allowUnsafeExternalContent).toBe(true);
  });

  test("credentials are invisible to templates: auth and signature headers, the token query parameter", async () => {
    const tpl = [
      "{{headers.authorization}}",
      "{{headers.x-service-token}}",
      "{{headers.cookie}}",
      "{{headers.x-hub-signature}}",
      "{{headers.x-hub-signature-256}}",
      "{{headers.x-signature}}",
      "{{headers.x-signature-ed25519}}",
      "{{headers.webhook-signature}}",
      "{{headers.svix-signature}}",
      "{{headers.x-gitlab-token}}",
      "{{query.token}}",
      "{{query.Token}}",
    ].join("|");
    const r = await resolveWith(
      { id: "m", messageTemplate: `${tpl}|{{ headers.x-github-event }}|{{ query.env }}|{{ headers }}` },
      hookInput("x", {}, { headers: credentialHeaders, query: { token: "test-hook-token-0123456789abcdef", Token: "t2", env: "prod" } }),
    );
    const message = r.ok && r.value.kind === "action" ? String(r.value.raw.message) : "";
    expect(message).toBe(`${"|".repeat(12)}push|prod|{"x-github-event":"push","x-github-delivery":"72d3162e-cc78-11e3-81ab-4c9367dc0958"}`);
  });

  test("with no template and a transform that returns undefined, the payload's own text/message is used", async () => {
    const r = await resolveWith({ id: "t", action: "wake", transform: { module: "keep.js" } }, hookInput("backup", { text: "Backup finished" }));
    expect(r).toEqual({
      ok: true,
      value: { kind: "action", mappingId: "t", allowUnsafeExternalContent: false, raw: { kind: "wake", text: "Backup finished" } },
    });
  });

  test("default content: the payload's own text (wake) or message (agent), else a heading and the payload as JSON", () => {
    expect(renderDefaultContent("wake", { path: "backup", payload: { text: "Backup finished" } }, "m")).toBe("Backup finished");
    expect(renderDefaultContent("agent", { path: "backup", payload: { message: "Summarise the backup log" } }, "m")).toBe("Summarise the backup log");
    expect(renderDefaultContent("agent", { path: "backup", payload: { text: "only for wake", n: 1 } }, "m")).toBe(
      'Webhook "backup" (mapping m) received this payload:\n{\n  "text": "only for wake",\n  "n": 1\n}',
    );
    expect(renderDefaultContent("wake", { path: "b", payload: { text: "   " } }, "m")).toBe(
      'Webhook "b" (mapping m) received this payload:\n{\n  "text": "   "\n}',
    );
    const big = renderDefaultContent("wake", { path: "big", payload: { blob: "x".repeat(20000) } }, "m");
    expect(big.endsWith("… (payload cut at 16000 characters)")).toBe(true);
  });
});
