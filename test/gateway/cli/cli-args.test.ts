/**
 * What the CLI reads before commander runs: the config file that decides which plugins (and so
 * which plugin commands, with which settings) exist. It must read `--config` as commander reads it
 * for the command, or a plugin command runs with another config than the one the user named.
 */
import { commandWords, configFlagOf } from "../../../src/gateway/cli/cli-args";

describe("configFlagOf", () => {
  it.each([
    [["webhooks", "test", "x", "--config", "my.json"], "my.json"],
    [["webhooks", "test", "x", "--config=my.json"], "my.json"],
    [["webhooks", "test", "x", "-c", "my.json"], "my.json"],
    [["plugins", "list"], undefined],
  ])("%j names %s", (argv, expected) => {
    expect(configFlagOf(argv)).toBe(expected);
  });

  it("-cFILE (a short flag with its value attached, as commander reads it) named no config, so a plugin command ran on the default one", () => {
    expect(configFlagOf(["webhooks", "test", "x", "-cmy.json"])).toBe("my.json");
    expect(configFlagOf(["webhooks", "deliveries", "list", "-c/etc/gw.json", "--json"])).toBe("/etc/gw.json");
  });

  it("a repeated --config names the last one, as commander's option value is the last one", () => {
    expect(configFlagOf(["webhooks", "test", "x", "--config", "a.json", "-cb.json"])).toBe("b.json");
  });

  it("nothing after -- is an option", () => {
    expect(configFlagOf(["webhooks", "test", "--", "-cmy.json"])).toBeUndefined();
    expect(commandWords(["webhooks", "--", "x"])).toEqual(["webhooks"]);
  });
});
