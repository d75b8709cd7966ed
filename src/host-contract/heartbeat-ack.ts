/**
 * Heartbeat acknowledgements: a reply that is only `HEARTBEAT_OK` (possibly with
 * a little markup and whitespace around it) is not worth delivering (SPEC §2.2,
 * §5.3). One rule for both deliverers: the plugin's run delivery
 * (src/runs/delivery.ts) and the embedded gateway's heartbeat
 * (src/gateway/heartbeat/heartbeat.ts).
 */

export const HEARTBEAT_TOKEN = "HEARTBEAT_OK";
/**
 * `meta.kind` of the system event a finished run posts to the main session (its
 * summary). A host may treat a heartbeat that carries only such events as nothing
 * new: the embedded gateway's echo runner acknowledges it (one hook, one message).
 */
export const RUN_SUMMARY_EVENT_KIND = "run-summary";
/** Characters other than the token an acknowledgement may carry. */
export const HEARTBEAT_ACK_MAX_OTHER_CHARS = 300;

const HTML_TAG = /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g;
const HTML_ENTITY = /&(?:[A-Za-z][A-Za-z0-9]*|#\d+|#x[0-9A-Fa-f]+);/g;
const MARKUP_ONLY = /^[\s\p{P}\p{S}\p{Cf}]*$/u;

/**
 * True when the reply is `HEARTBEAT_OK` (once or more) plus at most 300 other
 * characters, all of them whitespace or markup (punctuation/symbols such as `**`,
 * `` ` ``, `>`, `✓`, HTML tags and entities). No reply (undefined) is not an
 * acknowledgement. Linear in the reply's size: the regular expressions only ever
 * see the ≤ 300 other characters.
 *
 * @example isHeartbeatAck("**HEARTBEAT_OK**") // true
 * @example isHeartbeatAck("<p><b>HEARTBEAT_OK</b>&nbsp;</p>") // true
 * @example isHeartbeatAck("HEARTBEAT_OK, but the disk is full") // false
 */
export function isHeartbeatAck(reply: string | undefined): boolean {
  if (reply === undefined) return false;
  const parts = reply.split(HEARTBEAT_TOKEN);
  if (parts.length < 2) return false;
  const rest = parts.join("");
  if (Array.from(rest).length > HEARTBEAT_ACK_MAX_OTHER_CHARS) return false;
  return MARKUP_ONLY.test(rest.replace(HTML_TAG, "").replace(HTML_ENTITY, ""));
}
