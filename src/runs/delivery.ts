/**
 * Where a run's reply goes (SPEC §5.3): `channel` "last" resolves to the main
 * session's last route; a mapped run without one falls back to `phone_chat` where
 * the host offers it (the embedded gateway does; OpenClaw only with a phone_chat
 * channel configured: a fallback to a channel the host lacks failed every run); a
 * direct run without one, or a mapped run without the fallback, is not delivered. `to` defaults to the last route's
 * recipient when delivering on the last route's channel.
 */
import type { HostRuntime, LastRoute } from "../host-contract/host-api";
import type { ActionSource, AgentAction } from "../core/actions";
import { isHeartbeatAck } from "../host-contract/heartbeat-ack";

/** Channel a mapped run falls back to when `channel` is "last", there is no last route and the host offers it. */
export const MAPPED_FALLBACK_CHANNEL = "phone_chat";

export const NO_LAST_ROUTE_ERROR = 'no last route: channel "last" cannot be resolved because the main session has not delivered a reply anywhere yet';

export type DeliveryPlan =
  | { kind: "deliver"; channel: string; to?: string }
  | { kind: "skip"; reason: "disabled" | "heartbeat_ack" | "empty_reply" }
  | { kind: "unroutable"; code: "no_last_route"; error: string };

/** Decides whether and where to deliver `reply`. Pure apart from reading the last route and the channels the host offers. */
export function planDelivery(
  action: Pick<AgentAction, "deliver" | "channel" | "to">,
  source: Pick<ActionSource, "mappingId">,
  reply: string,
  lastRoute: () => LastRoute | undefined,
  offered: () => readonly string[],
): DeliveryPlan {
  if (!action.deliver) return { kind: "skip", reason: "disabled" };
  if (reply.trim() === "") return { kind: "skip", reason: "empty_reply" };
  if (isHeartbeatAck(reply)) return { kind: "skip", reason: "heartbeat_ack" };

  const last = lastRoute();
  if (action.channel === "last") {
    if (last) return withRecipient(last.channel, action.to ?? last.to);
    if (source.mappingId !== undefined && offered().includes(MAPPED_FALLBACK_CHANNEL)) return withRecipient(MAPPED_FALLBACK_CHANNEL, action.to);
    return { kind: "unroutable", code: "no_last_route", error: NO_LAST_ROUTE_ERROR };
  }
  return withRecipient(action.channel, action.to ?? (last && last.channel === action.channel ? last.to : undefined));
}

function withRecipient(channel: string, to: string | undefined): DeliveryPlan {
  return to === undefined ? { kind: "deliver", channel } : { kind: "deliver", channel, to };
}

export interface DeliveryResult {
  delivered: boolean;
  /** Set when the reply should have been delivered and was not. */
  error?: string;
  /** Machine code of `error`: "no_last_route" | "delivery_failed". */
  code?: "no_last_route" | "delivery_failed";
  channel?: string;
}

/** Carries out a plan. Never throws: a failed delivery comes back as `error`. */
export async function carryOutDelivery(plan: DeliveryPlan, text: string, channels: Pick<HostRuntime["channels"], "deliver">): Promise<DeliveryResult> {
  if (plan.kind === "skip") return { delivered: false };
  if (plan.kind === "unroutable") return { delivered: false, error: plan.error, code: plan.code };
  try {
    await channels.deliver(plan.to === undefined ? { channel: plan.channel, text } : { channel: plan.channel, to: plan.to, text });
    return { delivered: true, channel: plan.channel };
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return { delivered: false, channel: plan.channel, code: "delivery_failed", error: `delivery to ${plan.channel} failed: ${reason}` };
  }
}
