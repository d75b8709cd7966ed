/**
 * The plugin's own plugin.json: valid for the host, in step with package.json,
 * and declaring what SPEC §2.1 asks a host to read without running plugin code.
 */
import fs from "node:fs";
import path from "node:path";
import { readManifest } from "../../src/gateway/plugins/manifest";
import { HOST_API_VERSION } from "../../src/host-contract/host-api";

const root = path.resolve(__dirname, "../..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "plugin.json"), "utf8"));
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));

describe("plugin.json", () => {
  it("is accepted by the host's manifest reader at the current host API version", () => {
    const res = readManifest(root, HOST_API_VERSION);
    expect(res).toMatchObject({ ok: true, manifest: { id: "inbound-webhooks" } });
  });

  it("agrees with package.json on version and entry module", () => {
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.main).toBe(pkg.main);
    expect(manifest.main).toMatch(/^dist\/.+\.js$/);
  });

  it("marks the hook token and the IMAP password reference sensitive", () => {
    expect(manifest.uiHints["hooks.token"]).toMatchObject({ sensitive: true });
    expect(manifest.uiHints["hooks.mail.imap.password"]).toMatchObject({ sensitive: true });
  });

  it("declares activation, the route prefix, CLI commands and the built-in mail and github presets", () => {
    expect(manifest.activation).toEqual({ onStartup: true });
    expect(manifest.configSection).toBe("hooks");
    expect(manifest.contributes.httpRoutes).toEqual([{ prefixFromConfig: "hooks.path", default: "/hooks" }]);
    expect(manifest.contributes.cliCommands).toEqual(expect.arrayContaining(["webhooks test", "webhooks mail setup", "webhooks mail run"]));
    expect(manifest.contributes.presets.map((p: { name: string }) => p.name)).toEqual(["mail", "github"]);
    expect(manifest.contributes.channels).toEqual([]);
  });
});
