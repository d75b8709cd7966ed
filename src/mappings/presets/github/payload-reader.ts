/**
 * Safe reads of a GitHub webhook payload: every accessor tolerates a missing or
 * mistyped field (a payload is untrusted), and every text is bounded, so a
 * message built from it has a known maximum size whatever the sender sent.
 */
import { plainObject as obj } from "../../../core/plain-object";
import { oneLine } from "../preset-text";

export { excerpt, oneLine } from "../preset-text";

export type Json = Record<string, unknown>;

export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined);

/** `owner/repo` of the payload's repository, or "" when absent. */
export const repoName = (p: Json): string => oneLine(str(obj(p.repository).full_name), 200);

/** Who caused the event: the sender's login. */
export const actor = (p: Json): string => oneLine(str(obj(p.sender).login), 100) || "someone";
