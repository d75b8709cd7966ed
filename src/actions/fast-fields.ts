/**
 * Fast paths of the request validators for well-formed bodies: plain checks that
 * accept exactly what the joi schemas accept for the common fields, and return
 * undefined for anything else — then joi validates and words the error, so the
 * error texts are joi's, unchanged. test/actions/fast-fields.test.ts checks the
 * two paths agree on generated bodies.
 */
import { THINKING_LEVELS } from "../host-contract/host-api";
import { isPlainObject } from "../core/plain-object";
import { WAKE_MODES, type WakeMode } from "../core/actions";
import { hasControlChars, stripControlChars } from "./control-chars";

const NOT_BLANK = /\S/;
const isWakeMode = (v: unknown): v is WakeMode => typeof v === "string" && (WAKE_MODES as readonly string[]).includes(v);

/** `/wake` fields when they are valid, else undefined (joi decides). */
export function fastWakeFields(raw: unknown): { text: string; mode?: WakeMode } | undefined {
  if (!isPlainObject(raw)) return undefined;
  const { text, mode } = raw;
  if (typeof text !== "string" || !NOT_BLANK.test(text)) return undefined;
  if (mode !== undefined && !isWakeMode(mode)) return undefined;
  return mode === undefined ? { text } : { text, mode };
}

export interface FastAgentLimits {
  channels: readonly string[];
  maxName: number;
  maxSessionKey: number;
  maxTimeoutSeconds: number;
}

/**
 * `/agent` fields when they are valid, with joi's conversions (name cleaned and
 * trimmed, session key trimmed), else undefined. Bodies with `to`, `model` or `agentId` (phone
 * numbers, the model allow-list, the host's agents) always go through joi.
 */
export function fastAgentFields(raw: unknown, limits: FastAgentLimits): Record<string, unknown> | undefined {
  if (!isPlainObject(raw)) return undefined;
  const { message, name, sessionKey, wakeMode, deliver, channel, thinking, timeoutSeconds } = raw;
  if (raw.to !== undefined || raw.model !== undefined || raw.agentId !== undefined) return undefined;
  if (typeof message !== "string" || !NOT_BLANK.test(message)) return undefined;
  const out: Record<string, unknown> = { message };
  if (name !== undefined) {
    if (typeof name !== "string") return undefined;
    const clean = stripControlChars(name).trim();
    if (clean.length > limits.maxName) return undefined;
    out.name = clean;
  }
  if (sessionKey !== undefined) {
    if (typeof sessionKey !== "string" || sessionKey.length > limits.maxSessionKey || !NOT_BLANK.test(sessionKey) || hasControlChars(sessionKey))
      return undefined;
    out.sessionKey = sessionKey.trim();
  }
  if (wakeMode !== undefined) {
    if (!isWakeMode(wakeMode)) return undefined;
    out.wakeMode = wakeMode;
  }
  if (deliver !== undefined) {
    if (typeof deliver !== "boolean") return undefined;
    out.deliver = deliver;
  }
  if (channel !== undefined) {
    if (typeof channel !== "string" || (channel !== "last" && !limits.channels.includes(channel))) return undefined;
    out.channel = channel;
  }
  if (thinking !== undefined) {
    if (typeof thinking !== "string" || !(THINKING_LEVELS as readonly string[]).includes(thinking)) return undefined;
    out.thinking = thinking;
  }
  if (timeoutSeconds !== undefined) {
    if (typeof timeoutSeconds !== "number" || !Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0 || timeoutSeconds > limits.maxTimeoutSeconds)
      return undefined;
    out.timeoutSeconds = timeoutSeconds;
  }
  return out;
}
