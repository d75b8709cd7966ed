/**
 * State that holds payloads or secrets is private to the user running the
 * gateway or the plugin (docs/security.md): directories created 0700, files
 * created 0600. Existing directories are never changed silently; see
 * `openToOthersWarning`.
 */
import fs from "node:fs";
import path from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` (and missing parents) 0700. `recursive` applies the mode only
 * to the directories it creates and the umask may clear bits, so each created
 * one is set explicitly; directories that already existed are left as they are.
 */
export function mkdirPrivate(dir: string): void {
  const first = fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return;
  const top = path.resolve(first);
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    fs.chmodSync(d, PRIVATE_DIR_MODE);
    if (d === top || path.dirname(d) === d) return;
  }
}

/** Creates `file` empty and 0600 when missing (an existing file is untouched). */
export function touchPrivate(file: string): void {
  fs.closeSync(fs.openSync(file, "a", PRIVATE_FILE_MODE));
}

/**
 * One warning line when an existing `dir` can be read or entered by its group
 * or by others (undefined when it is private, missing, or on a platform without
 * POSIX modes).
 */
export function openToOthersWarning(dir: string, what: string): string | undefined {
  if (process.platform === "win32") return undefined;
  let mode: number;
  try {
    mode = fs.statSync(dir).mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  const octal = mode.toString(8).padStart(4, "0");
  return `the ${what} ${dir} is open to other users (mode ${octal}): it holds stored payloads; run: chmod 700 ${dir}`;
}
