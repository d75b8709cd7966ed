import { isHeartbeatAck } from "../../src/host-contract/heartbeat-ack";
import { ACK_REPLIES, NOT_ACK_REPLIES } from "./heartbeat-ack-cases";

describe("isHeartbeatAck", () => {
  it.each(ACK_REPLIES)("accepts %s", (_label, reply) => {
    expect(isHeartbeatAck(reply)).toBe(true);
  });

  it.each(NOT_ACK_REPLIES)("refuses %s", (_label, reply) => {
    expect(isHeartbeatAck(reply)).toBe(false);
  });

  it("refuses an empty reply and no reply at all", () => {
    expect(isHeartbeatAck("")).toBe(false);
    expect(isHeartbeatAck(undefined)).toBe(false);
  });
});
