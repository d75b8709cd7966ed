/**
 * The one identity of a hook (SPEC §4.1 "One identity per hook"): the part of the
 * request path below `{hooks.path}` turned into the hook's name once, at the
 * boundary. Every consumer — route, mapping match, per-mapping rate limit,
 * idempotency scope, handshake, signature gate, ledger row, metric label, log —
 * reads the name this returns and never works it out again from the URL.
 *
 * The rule: percent-decoded once; empty and `.` segments dropped (so repeated `/`,
 * a leading or trailing `/` and `a/./b` all go); a `..` segment (also spelled
 * `%2E%2E`), an encoded `/` inside a segment (`%2F`) or a control character (C0,
 * DEL, C1, raw or encoded) makes the path name no hook (404). Linear in the
 * length of the path (no backtracking pattern).
 *
 * @example hookNameOf("/a//./b/")  // { ok: true, name: "a/b" }
 * @example hookNameOf("/%61/b")    // { ok: true, name: "a/b" }
 * @example hookNameOf("/a/../b")   // { ok: false, reason: "dot-segment" }
 */

/** Why a path names no hook: each is answered 404 `not_found`. */
export type HookNameRefusal = "undecodable" | "encoded-slash" | "dot-segment" | "control-character" | "empty";

export type HookNameResult = { ok: true; name: string } | { ok: false; reason: HookNameRefusal };

/** `%2F` / `%2f`: a `/` that would hide a segment boundary from the rule. */
const ENCODED_SLASH = /%2f/i;
/** C0 controls, DEL and C1 controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The hook name of the raw (still percent-encoded) path below the mount point. */
export function hookNameOf(rawSubPath: string): HookNameResult {
  if (ENCODED_SLASH.test(rawSubPath)) return { ok: false, reason: "encoded-slash" };
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawSubPath);
  } catch {
    return { ok: false, reason: "undecodable" };
  }
  if (CONTROL.test(decoded)) return { ok: false, reason: "control-character" };
  const segments: string[] = [];
  for (const segment of decoded.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") return { ok: false, reason: "dot-segment" };
    segments.push(segment);
  }
  if (segments.length === 0) return { ok: false, reason: "empty" };
  return { ok: true, name: segments.join("/") };
}
