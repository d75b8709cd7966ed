/**
 * Recognises a reply that is only a heartbeat acknowledgement: `HEARTBEAT_OK`
 * with at most 300 other characters, all of them whitespace or markup
 * (Markdown emphasis/code/heading marks, punctuation, HTML tags).
 */
export const HEARTBEAT_TOKEN = "HEARTBEAT_OK";
const MAX_EXTRA = 300;

export function isHeartbeatAck(reply: string | undefined): boolean {
  if (reply === undefined) return false;
  const at = reply.indexOf(HEARTBEAT_TOKEN);
  if (at === -1) return false;
  const rest = reply.slice(0, at) + reply.slice(at + HEARTBEAT_TOKEN.length);
  if (rest.length > MAX_EXTRA) return false;
  const withoutTags = rest.replace(/<\/?[a-zA-Z][a-zA-Z0-9]*\s*\/?>/g, "");
  return /^[\s*_`~#>\-=+|[\](){}.,:;!?"']*$/.test(withoutTags);
}
