/**
 * The external-content safety wrapper (SPEC §5.2): every hook-supplied text that
 * reaches a session is framed as untrusted data between random-id markers.
 */
import { randomHex } from "../core/random-hex";
import { neutraliseMarkers } from "./neutralise";
import { UNTRUSTED_NOTICE } from "../host-contract/untrusted-notice";

export interface WrapMeta {
  /** Hook name: "wake", "agent", or the mapped sub-path. */
  hook: string;
  /** Id of the matched mapping, for mapped hooks. */
  mappingId?: string;
}

export interface WrapOptions {
  /** Marker id generator (hex); default 16 random bytes. Injected by tests. */
  idGen?: () => string;
}

/** The notice that precedes every wrapped content (defined in src/host-contract/untrusted-notice.ts, which also folds it for people). */
export { UNTRUSTED_NOTICE };

const MARKER_ID = /^[0-9a-f]{8,64}$/i;
const MAX_META_CHARS = 200;

/** 16 random bytes as 32 hex characters. */
export function defaultMarkerId(): string {
  return randomHex(16);
}

/** Metadata values go inside the boundary on one line: controls removed, look-alikes neutralised, bounded. */
function cleanMeta(value: string): string {
  const oneLine = value
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  const safe = neutraliseMarkers(oneLine);
  const chars = Array.from(safe);
  return JSON.stringify(chars.length > MAX_META_CHARS ? chars.slice(0, MAX_META_CHARS).join("") + "…" : safe);
}

/**
 * Wraps hook-supplied content as untrusted data.
 *
 * Output: the notice, `<<<EXTERNAL_UNTRUSTED_CONTENT id="<hex>">>>`, a `Source:` line
 * (hook name, mapping id), `---`, the content with every marker look-alike
 * neutralised, and `<<<END_EXTERNAL_UNTRUSTED_CONTENT id="<hex>">>>`.
 *
 * @example
 * wrapExternalContent("Deploy finished", { hook: "github", mappingId: "gh-push" })
 * // SECURITY NOTICE: …
 * // <<<EXTERNAL_UNTRUSTED_CONTENT id="9f…">>>
 * // Source: webhook "github", mapping "gh-push"
 * // ---
 * // Deploy finished
 * // <<<END_EXTERNAL_UNTRUSTED_CONTENT id="9f…">>>
 */
export function wrapExternalContent(content: string, meta: WrapMeta, opts: WrapOptions = {}): string {
  const id = (opts.idGen ?? defaultMarkerId)();
  if (!MARKER_ID.test(id)) throw new Error("wrapExternalContent: the marker id must be 8 to 64 hex characters");
  const source = `Source: webhook ${cleanMeta(meta.hook)}` + (meta.mappingId !== undefined ? `, mapping ${cleanMeta(meta.mappingId)}` : "");
  return [
    UNTRUSTED_NOTICE,
    `<<<EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>`,
    source,
    "---",
    neutraliseMarkers(content),
    `<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>`,
  ].join("\n");
}
