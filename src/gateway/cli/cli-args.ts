/**
 * What the CLI reads before any command module loads: the `--config` flag (it
 * decides which plugins exist) and the package's version (`gateway --version`).
 */
import fs from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../paths";

/**
 * The value of `--config`/`-c` in argv, if given, read as commander reads it for the command:
 * `--config FILE`, `--config=FILE`, `-c FILE` and `-cFILE`; the last one wins; nothing after `--`.
 */
export function configFlagOf(argv: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    if (a === "--config" || a === "-c") {
      if (i + 1 < argv.length) value = argv[++i];
    } else if (a.startsWith("--config=")) value = a.slice("--config=".length);
    else if (a.startsWith("-c") && !a.startsWith("--")) value = a.slice(2);
  }
  return value;
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
    if (a === "--") break;
    if (a === "--config" || a === "-c") i++;
    else if (!a.startsWith("-")) words.push(a);
  }
  return words;
}

/** `version` of this package's package.json. */
export function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
}
