/**
 * The one table of heartbeat acknowledgements (SPEC §2.2, §5.3), run against the
 * rule itself (heartbeat-ack.test.ts), the plugin's run delivery decision
 * (test/runs/delivery.test.ts) and the gateway's heartbeat delivery
 * (test/gateway/heartbeat/heartbeat-ack-delivery.test.ts), so the two deliverers
 * cannot drift apart again. Every reply here is non-empty: an empty reply is a
 * separate rule of each deliverer.
 */

/** Replies that are only an acknowledgement: never delivered. */
export const ACK_REPLIES: ReadonlyArray<readonly [label: string, reply: string]> = [
  ["the bare token", "HEARTBEAT_OK"],
  ["surrounding whitespace", "  \nHEARTBEAT_OK\n\n"],
  ["markdown bold", "**HEARTBEAT_OK**"],
  ["inline code and a period", "`HEARTBEAT_OK`."],
  ["a heading and a period", "## HEARTBEAT_OK."],
  ["a bold tag", "<b>HEARTBEAT_OK</b>"],
  // The four below were delivered as chat messages by the gateway's former copy of the rule.
  ["HTML tags and an entity", "<p><b>HEARTBEAT_OK</b>&nbsp;</p>"],
  ["a tag with attributes", '<span class="x">HEARTBEAT_OK</span>'],
  ["a quote mark and a check mark", "> HEARTBEAT_OK ✓"],
  ["the token twice", "HEARTBEAT_OK HEARTBEAT_OK"],
  ["exactly 300 other characters", `${" ".repeat(150)}HEARTBEAT_OK${"*".repeat(150)}`],
];

/** Replies that say something besides the acknowledgement: delivered. */
export const NOT_ACK_REPLIES: ReadonlyArray<readonly [label: string, reply: string]> = [
  ["a reply without the token", "All good"],
  ["lower case", "heartbeat_ok"],
  ["the token with words", "HEARTBEAT_OK, but the disk is 95% full"],
  ["the token glued to a word", "XHEARTBEAT_OK"],
  ["words after the token", "HEARTBEAT_OK but also call mum"],
  ["301 other characters", `${" ".repeat(151)}HEARTBEAT_OK${"*".repeat(150)}`],
  ["words hidden in a tag-like form", "HEARTBEAT_OK <not a tag"],
  ["words inside a tag pair", "<p>HEARTBEAT_OK</p><p>call mum</p>"],
];
