/**
 * The mail watcher's default hook URL, resolved once with the config from
 * `gateway.bind`, `gateway.port` and `hooks.path` (regression: the autoStart service
 * hard-coded port 18789 while `mail run` honoured `gateway.port`).
 */
import { resolveConfig } from "../../src/config/resolve";
import { defaultMailHookUrl } from "../../src/config/mail-hook-url";

const imap = { host: "imap.example.org", user: "me", password: { env: "IMAP_PW" } };
const resolveMail = (raw: Record<string, unknown>) => resolveConfig(raw, { configDir: "/cfg" }).mail!;

describe("defaultMailHookUrl", () => {
  it.each([
    ["no gateway section", {}, "http://127.0.0.1:18789/hooks/mail"],
    ["gateway.port", { gateway: { port: 8080 } }, "http://127.0.0.1:8080/hooks/mail"],
    [
      "a wildcard IPv4 bind (reached over loopback) and an unnormalised hooks.path",
      { gateway: { bind: "0.0.0.0", port: 8080 }, hooks: { path: "in/" } },
      "http://127.0.0.1:8080/in/mail",
    ],
    ["a wildcard IPv6 bind", { gateway: { bind: "::" } }, "http://[::1]:18789/hooks/mail"],
    ["a LAN address", { gateway: { bind: "192.168.1.5" } }, "http://192.168.1.5:18789/hooks/mail"],
    ["an IPv6 literal (bracketed)", { gateway: { bind: "fd00::5" } }, "http://[fd00::5]:18789/hooks/mail"],
    ["repeated slashes in hooks.path", { hooks: { path: "//in//bound/" } }, "http://127.0.0.1:18789/in/bound/mail"],
    ["hooks.path / alone (refused by the schema; the default path is offered)", { hooks: { path: "/" } }, "http://127.0.0.1:18789/hooks/mail"],
    ["port 0 (picked at start, unknowable here)", { gateway: { port: 0 } }, "http://127.0.0.1:18789/hooks/mail"],
    ["a port that is not a number", { gateway: { port: "8080" } }, "http://127.0.0.1:18789/hooks/mail"],
  ])("%s", (_label, raw, url) => {
    expect(defaultMailHookUrl(raw)).toBe(url);
  });
});

describe("resolveConfig: hooks.mail.hookUrl", () => {
  it("defaults to the mail hook of this gateway: its port, bind and hooks.path", () => {
    const mail = resolveMail({ gateway: { bind: "127.0.0.2", port: 19123 }, hooks: { path: "/in", mail: { imap } } });
    expect(mail.hookUrl).toBe("http://127.0.0.2:19123/in/mail");
  });

  it("keeps a configured hookUrl as it is", () => {
    const mail = resolveMail({ gateway: { port: 19123 }, hooks: { mail: { imap, hookUrl: "https://gw.example.org/hooks/mail" } } });
    expect(mail.hookUrl).toBe("https://gw.example.org/hooks/mail");
  });
});
