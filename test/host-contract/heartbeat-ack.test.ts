import { isHeartbeatAck } from "../../src/host-contract/heartbeat-ack";

describe("isHeartbeatAck", () => {
  it.each([
    ["the bare token", "HEARTBEAT_OK"],
    ["surrounding whitespace", "  \nHEARTBEAT_OK\n\n"],
    ["markdown bold", "**HEARTBEAT_OK**"],
    ["inline code", "`HEARTBEAT_OK`"],
    ["a heading and a period", "## HEARTBEAT_OK."],
    ["HTML tags and an entity", "<p><b>HEARTBEAT_OK</b>&nbsp;</p>"],
    ["a quote block with emoji-free symbols", "> HEARTBEAT_OK ✓"],
    ["exactly 300 other characters", `${" ".repeat(150)}HEARTBEAT_OK${"*".repeat(150)}`],
  ])("accepts %s", (_label, reply) => {
    expect(isHeartbeatAck(reply)).toBe(true);
  });

  it.each([
    ["an empty reply", ""],
    ["a reply without the token", "All good"],
    ["lower case", "heartbeat_ok"],
    ["the token with words", "HEARTBEAT_OK, but the disk is 95% full"],
    ["the token glued to a word", "XHEARTBEAT_OK"],
    ["301 other characters", `${" ".repeat(151)}HEARTBEAT_OK${"*".repeat(150)}`],
    ["words hidden in a tag-like form", "HEARTBEAT_OK <not a tag"],
  ])("refuses %s", (_label, reply) => {
    expect(isHeartbeatAck(reply)).toBe(false);
  });
});
