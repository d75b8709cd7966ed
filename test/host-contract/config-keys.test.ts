import { configKeyNamer, DEFAULT_CONFIG_SECTION, withKeysNamed } from "../../src/host-contract/config-keys";

const OPENCLAW = "plugins.entries.inbound-webhooks.config";

describe("configKeyNamer: the plugin's config keys named where the host keeps its section", () => {
  const inOpenClaw = configKeyNamer(OPENCLAW);

  it("names every key of the section in a sentence, dotted and indexed", () => {
    expect(inOpenClaw("hooks.token is required when hooks.enabled is true")).toBe(`${OPENCLAW}.token is required when ${OPENCLAW}.enabled is true`);
    expect(inOpenClaw('hooks.presets[0] names an unknown preset "gihtub"')).toBe(`${OPENCLAW}.presets[0] names an unknown preset "gihtub"`);
    expect(inOpenClaw("queued again (hooks.runs.retryInterrupted)")).toBe(`queued again (${OPENCLAW}.runs.retryInterrupted)`);
    expect(inOpenClaw("one\nhooks.maxBodyBytes must be a number\nhooks.path is taken")).toBe(
      `one\n${OPENCLAW}.maxBodyBytes must be a number\n${OPENCLAW}.path is taken`,
    );
  });

  it("leaves words, other keys and paths that only contain 'hooks' as they are", () => {
    const untouched =
      "hooks disabled (the word alone); webhooks.path and myhooks.x stay; mapped hooks accept forms; payload.hooks.x, /webhooks/hooks.json, my-hooks.x, agents.defaults.timeoutSeconds";
    expect(inOpenClaw(untouched)).toBe(untouched);
  });

  it("names nothing differently without a section, with `hooks` or with a section that is no dotted path", () => {
    const sentence = "hooks.token is required when hooks.enabled is true";
    for (const section of [undefined, DEFAULT_CONFIG_SECTION, "", "a b", "$&.x"]) expect(configKeyNamer(section)(sentence)).toBe(sentence);
  });

  it("is idempotent: a sentence already in the host's terms stays as it is", () => {
    const once = inOpenClaw("hooks.maxBodyBytes allows 100 bytes");
    expect(inOpenClaw(once)).toBe(once);
  });

  it("withKeysNamed names the keys in an error's message and keeps the error (its name, its code)", () => {
    const e = Object.assign(new Error("hooks.token is required"), { name: "ConfigError", code: "x" });
    const named = withKeysNamed(e, inOpenClaw);
    expect(named).toBe(e);
    expect({ name: named.name, message: named.message, code: (named as Error & { code: string }).code }).toEqual({
      name: "ConfigError",
      message: `${OPENCLAW}.token is required`,
      code: "x",
    });
    expect(withKeysNamed("hooks.path is taken", inOpenClaw).message).toBe(`${OPENCLAW}.path is taken`);
  });
});
