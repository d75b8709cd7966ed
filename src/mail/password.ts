/**
 * Resolves the IMAP password reference of `hooks.mail.imap.password`
 * (`{ env: NAME }` or `{ file: PATH }`) at connect time. The value is never logged.
 */
import fs from "node:fs";
import path from "node:path";
import type { MailConfig } from "../config/types";
import { mailErrors } from "./mail-error";

export type PasswordRef = MailConfig["imap"]["password"];

/** Human description of a reference, safe to print: `env MAIL_PASSWORD` / `file /path`. */
export function describePasswordRef(ref: PasswordRef): string {
  return "env" in ref ? `environment variable ${ref.env}` : `file ${ref.file}`;
}

/**
 * Reads the password. A relative file path resolves against `baseDir` (the config
 * file's directory). One trailing newline of a file is dropped.
 */
export function resolvePassword(ref: PasswordRef, opts: { baseDir?: string; env?: NodeJS.ProcessEnv } = {}): string {
  if ("env" in ref) {
    const value = (opts.env ?? process.env)[ref.env];
    if (value === undefined || value === "") {
      throw mailErrors.passwordEnvUnset({ name: ref.env });
    }
    return value;
  }
  const file = path.resolve(opts.baseDir ?? process.cwd(), ref.file);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "error";
    throw mailErrors.passwordFileUnreadable({ file, errno: code }, { cause: e });
  }
  const value = text.replace(/\r?\n$/, "");
  if (value === "") throw mailErrors.passwordFileEmpty({ file });
  return value;
}
