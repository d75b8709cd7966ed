/**
 * Reading and rewriting the gateway config file for `mail setup` without disturbing
 * the rest of it: parsed with JSON5 (comments and trailing commas accepted), written
 * back as JSON with 2-space indentation, every other key kept in its order, atomically,
 * keeping the file's permissions (a new file is 0600: it holds the hook token; `mail setup`
 * tightens an existing file to 0600 when it adds a plain-text token to it).
 */
import fs from "node:fs";
import JSON5 from "json5";
import { writeFileAtomic } from "../../host-contract/atomic-write";
import { mailErrors } from "../mail-error";

export interface RawConfigFile {
  file: string;
  /** False when the file does not exist yet (it will be created). */
  existed: boolean;
  /** The parsed top-level object ({} for a new file). */
  raw: Record<string, unknown>;
  /** True when the file used JSON5 syntax (comments, trailing commas…) that plain JSON output drops. */
  json5Only: boolean;
  /** Permission bits of the existing file. */
  mode?: number;
}

/** Reads a config file (a missing file is an empty config). */
export function readRawConfigFile(file: string): RawConfigFile {
  let text: string;
  let mode: number | undefined;
  try {
    text = fs.readFileSync(file, "utf8");
    mode = fs.statSync(file).mode & 0o777;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { file, existed: false, raw: {}, json5Only: false };
    throw mailErrors.configUnreadable({ file, errno: code ?? "error" }, { cause: e });
  }
  let parsed: unknown;
  let json5Only = false;
  try {
    parsed = JSON.parse(text);
  } catch {
    try {
      parsed = JSON5.parse(text);
      json5Only = true;
    } catch (e) {
      throw mailErrors.configNotJson({ file, reason: (e as Error).message.replace(/^JSON5: /, "") }, { cause: e });
    }
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw mailErrors.configNotObject({ file });
  }
  return { file, existed: true, raw: parsed as Record<string, unknown>, json5Only, mode };
}

/**
 * Writes the config as 2-space JSON, atomically; when the original used JSON5-only syntax a `.bak` copy is kept first.
 * `mode` replaces the file's permissions (default: kept; 0600 for a new file).
 */
export function writeRawConfigFile(current: RawConfigFile, next: Record<string, unknown>, mode?: number): { backup?: string } {
  let backup: string | undefined;
  try {
    if (current.existed && current.json5Only) {
      backup = `${current.file}.bak`;
      fs.copyFileSync(current.file, backup);
    }
    writeFileAtomic(current.file, JSON.stringify(next, null, 2) + "\n", mode ?? current.mode ?? 0o600);
  } catch (e) {
    throw mailErrors.configUnwritable({ file: current.file, errno: (e as NodeJS.ErrnoException).code ?? "error" }, { cause: e });
  }
  return { backup };
}

export interface SetupWrite {
  written: boolean;
  backup?: string;
  warnings: string[];
}

/**
 * Step 4 of `mail setup` — write: the file is written when it is new or something
 * changed (`mode` as decided by the apply step), else left untouched.
 */
export function writeSetupConfig(current: RawConfigFile, applied: { config: Record<string, unknown>; changes: string[]; mode?: number }): SetupWrite {
  if (current.existed && applied.changes.length === 0) return { written: false, warnings: [] };
  const { backup } = writeRawConfigFile(current, applied.config, applied.mode);
  if (!backup) return { written: true, warnings: [] };
  return {
    written: true,
    backup,
    warnings: [`The config file used JSON5 syntax (comments, trailing commas…) and was rewritten as plain JSON; the original is kept as ${backup}.`],
  };
}
