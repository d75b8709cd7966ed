/**
 * Typed events the plugin emits (eventemitter3). Subscribers (tests, other
 * plugins via the host, metrics) get decisions, never payloads or tokens.
 */
import { EventEmitter } from "eventemitter3";
import type { ErrorCode } from "./errors";
import type { AcceptedKind } from "./outcome";
import type { RunStatus } from "./runs";

export interface PluginEvents {
  "request:accepted": (e: {
    requestId: string;
    hook: string;
    mappingId?: string;
    status: number;
    kind: AcceptedKind;
    runId?: string;
    replayed?: boolean;
  }) => void;
  "request:rejected": (e: { requestId: string; hook?: string; status: number; code: ErrorCode }) => void;
  "run:started": (e: { runId: string; sessionKey: string; name: string }) => void;
  "run:finished": (e: { runId: string; sessionKey: string; name: string; status: RunStatus; delivered: boolean }) => void;
}

export type PluginEmitter = EventEmitter<PluginEvents>;

export function createPluginEmitter(): PluginEmitter {
  return new EventEmitter<PluginEvents>();
}
