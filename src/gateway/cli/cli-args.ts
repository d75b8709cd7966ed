/**
 * What the CLI reads before any command module loads: the `--config` flag (it
 * decides which plugins exist) and the package's version (`gateway --version`).
 */
import fs from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../paths";

/** The value of `--config`/`-c` anywhere in argv, if given. */
export function configFlagOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((a === "--config" || a === "-c") && i + 1 < argv.length) return argv[i + 1];
    if (a.startsWith("--config=")) return a.slice("--config=".length);
  }
  return undefined;
}

/**
 * The words of argv that name commands: options and the value of `--config`/`-c`
 * left out, so `gateway --help --config my.json` is the top-level help, not a
 * command named "my.json".
 */
export function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--config" || a === "-c") i++;
    else if (!a.startsWith("-")) words.push(a);
  }
  return words;
}

/** `version` of this package's package.json. */
export function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
}
