/**
 * `hooks.mail` (SPEC §8, MailConfig): defaults, the IMAP port by TLS mode, the
 * password-by-reference rule, and the hookUrl check only resolveConfig() makes.
 */
import { resolveConfig } from "../../src/config/resolve";
import type { MailConfig } from "../../src/config/types";

const imap = { host: "imap.example.org", user: "me@example.org", password: { env: "IMAP_PASSWORD" } };

function mail(section: Record<string, unknown>): MailConfig | undefined {
  return resolveConfig({ hooks: { mail: section } }, { configDir: "/cfg", env: {} }).mail;
}

function problem(section: Record<string, unknown>): string {
  try {
    mail(section);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("hooks.mail", () => {
  it("is absent unless configured", () => {
    expect(resolveConfig({ hooks: {} }, { configDir: "/cfg" }).mail).toBeUndefined();
  });

  it("applies every default to a minimal section (the password stays a reference, the hook URL is this gateway's)", () => {
    expect(mail({ imap })).toEqual({
      imap: { host: "imap.example.org", port: 993, tls: "tls", user: "me@example.org", password: { env: "IMAP_PASSWORD" }, mailbox: "INBOX" },
      hookUrl: "http://127.0.0.1:18789/hooks/mail",
      includeBody: false,
      maxBytes: 8192,
      maxMessages: 10,
      pollSeconds: 60,
      autoStart: false,
      deliver: true,
      channel: "last",
      allowUnsafeExternalContent: false,
    });
  });

  it.each([
    ["tls", 993],
    ["starttls", 143],
    ["none", 143],
  ])("the IMAP port defaults by TLS mode: %s → %d", (tls, port) => {
    expect(mail({ imap: { ...imap, tls } })!.imap.port).toBe(port);
  });

  it("keeps every configured value", () => {
    const full = {
      imap: { ...imap, port: 1993, tls: "starttls", password: { file: "secrets/imap" }, mailbox: "Hooks" },
      hookUrl: "https://gw.example.org/hooks/mail",
      includeBody: true,
      maxBytes: 2048,
      maxMessages: 3,
      pollSeconds: 30,
      autoStart: true,
      deliver: false,
      channel: "phone_chat",
      to: "+15551234567",
      model: "openai/gpt-4o-mini",
      thinking: "low",
      allowUnsafeExternalContent: true,
    };
    expect(mail(full)).toEqual(full);
  });

  it("refuses a plain-text password with a clear message that does not echo it", () => {
    const msg = problem({ imap: { ...imap, password: "Hunter2-Zq9" } });
    expect(msg).toBe('hooks.mail.imap.password must be a reference ({ "env": "NAME" } or { "file": "path" }); a plain-text password is refused');
    expect(msg).not.toContain("Zq9");
  });

  it("refuses a hookUrl with user:password@ without echoing it (regression: accepted, then every post failed inside fetch and was retried for ever)", () => {
    const msg = problem({ imap, hookUrl: "http://hookuser:Pw-Zq9@127.0.0.1:18789/hooks/mail" });
    expect(msg).toBe("hooks.mail.hookUrl must not carry credentials (user:password@): the watcher sends hooks.token in a header");
    expect(msg).not.toContain("Zq9");
  });

  it.each(["token", "key", "access_token", "api_key"])(
    "refuses a hookUrl with a ?%s= query credential (regression: accepted; the config check looked only for user:password@)",
    (name) => {
      const msg = problem({ imap, hookUrl: `http://127.0.0.1:18789/hooks/mail?${name}=Pw-Zq9` });
      expect(msg).toBe("hooks.mail.hookUrl must not carry credentials (a query parameter such as ?token=): the watcher sends hooks.token in a header");
      expect(msg).not.toContain("Zq9");
    },
  );

  it("accepts a hookUrl with a query parameter that is no credential", () => {
    expect(mail({ imap, hookUrl: "http://127.0.0.1:18789/hooks/mail?source=inbox" })?.hookUrl).toBe("http://127.0.0.1:18789/hooks/mail?source=inbox");
  });

  it.each<[Record<string, unknown>, string]>([
    [{}, "hooks.mail.imap is required"],
    [{ imap: { user: "u", password: { env: "P" } } }, "hooks.mail.imap.host is required"],
    [{ imap: { host: "h", password: { env: "P" } } }, "hooks.mail.imap.user is required"],
    [{ imap: { host: "h", user: "u" } }, "hooks.mail.imap.password is required"],
    [{ imap: { ...imap, tls: "ssl" } }, 'hooks.mail.imap.tls must be one of: tls, starttls, none (got "ssl")'],
    [{ imap: { ...imap, port: 0 } }, "hooks.mail.imap.port must be at least 1"],
    [{ imap: { ...imap, password: { env: "P", file: "f" } } }, "hooks.mail.imap.password must have only one of: env, file"],
    [{ imap, maxMessages: 1001 }, "hooks.mail.maxMessages must be at most 1000"],
    [{ imap, maxBytes: 0 }, "hooks.mail.maxBytes must be at least 1"],
    [{ imap, pollSeconds: 1.5 }, "hooks.mail.pollSeconds must be an integer"],
    [{ imap, includeBody: "yes" }, "hooks.mail.includeBody must be a boolean (true or false)"],
    [{ imap, thinking: "max" }, 'hooks.mail.thinking must be one of: off, minimal, low, medium, high, xhigh (got "max")'],
    [{ imap, hookUrl: "127.0.0.1:18789/hooks/mail" }, "hooks.mail.hookUrl must be an http:// or https:// URL"],
    [{ imap, hookUrl: "http://[::1" }, "hooks.mail.hookUrl must be a valid URL"],
    [{ imap: { ...imap, pasword: "x" } }, "hooks.mail.imap.pasword is not a known key (did you mean hooks.mail.imap.password?)"],
    [{ imap, autostart: true }, "hooks.mail.autostart is not a known key (did you mean hooks.mail.autoStart?)"],
  ])("%j → %s", (section, expected) => {
    expect(problem(section)).toBe(expected);
  });
});
