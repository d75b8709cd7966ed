/**
 * The OpenClaw install commands are written twice, in docs/openclaw.md (which
 * test/e2e/openclaw/openclaw-features.test.ts runs verbatim on a fresh clone) and in the README:
 * the README's must be the doc's, and the tarball they install must be the one `npm pack` writes
 * for this package's name and version (a version bump would leave both naming a file that is not there).
 */
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");

/** The ```sh block after the first `<!-- install-commands` marker of a markdown file. */
function installBlock(file: string): string {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const at = text.indexOf("<!-- install-commands");
  expect(at).toBeGreaterThanOrEqual(0);
  const block = /```sh\n([^`]*)```/.exec(text.slice(at));
  if (!block) throw new Error(`${file}: no \`\`\`sh block after <!-- install-commands`);
  return block[1]!;
}

describe("the OpenClaw install commands of the docs", () => {
  it("are the same in the README and in docs/openclaw.md", () => {
    expect(installBlock("README.md")).toBe(installBlock("docs/openclaw.md"));
  });

  it("install the tarball npm pack writes for this package's name and version, with --force", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { name: string; version: string };
    const commands = installBlock("docs/openclaw.md");
    expect(commands).toContain(`openclaw plugins install npm-pack:./${pkg.name}-${pkg.version}.tgz --force`);
    expect(commands.split("\n")).toContain("npm pack");
  });
});
