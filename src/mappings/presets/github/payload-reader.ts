/**
 * Safe reads of a GitHub webhook payload: every accessor tolerates a missing or
 * mistyped field (a payload is untrusted), and every text is bounded, so a
 * message built from it has a known maximum size whatever the sender sent.
 */

export type Json = Record<string, unknown>;

export const obj = (v: unknown): Json => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined);

/** Collapses runs of white space and cuts at `max` characters (code points), marking the cut with "…". */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join("")}…`;
}

/** Keeps line breaks (trimmed, blank runs folded) and cuts at `max` characters, marking the cut. */
export function excerpt(text: string, max: number): string {
  const tidy = text.replace(/\r\n?/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
  const chars = Array.from(tidy);
  return chars.length <= max ? tidy : `${chars.slice(0, max - 1).join("")}…`;
}

/** `owner/repo` of the payload's repository, or "" when absent. */
export const repoName = (p: Json): string => oneLine(str(obj(p.repository).full_name), 200);

/** Who caused the event: the sender's login. */
export const actor = (p: Json): string => oneLine(str(obj(p.sender).login), 100) || "someone";
