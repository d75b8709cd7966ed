/**
 * Checks what a transform returned (SPEC §6.3): `null` (skip), `undefined` (keep
 * the mapping's action) or a plain object with only known override fields of
 * the right types. Values are checked for type only; their rules (e.g. a valid
 * `mode`) are applied later by the same validation as direct requests.
 * Works across realms (transforms may run in another VM context).
 */
import { isPlainObject } from "../../core/plain-object";
import type { TransformOverride, TransformResult } from "../define-transform";

const FIELD_TYPES: Record<keyof TransformOverride, "string" | "boolean" | "number"> = {
  kind: "string",
  text: "string",
  mode: "string",
  message: "string",
  name: "string",
  sessionKey: "string",
  wakeMode: "string",
  deliver: "boolean",
  channel: "string",
  to: "string",
  model: "string",
  thinking: "string",
  agentId: "string",
  timeoutSeconds: "number",
  allowUnsafeExternalContent: "boolean",
};

export type TransformResultCheck = { ok: true; value: TransformResult } | { ok: false; problem: string };

/** Validates a transform's return value; returns the override without undefined fields. */
export function validateTransformResult(value: unknown): TransformResultCheck {
  if (value === null || value === undefined) return { ok: true, value };
  if (!isPlainObject(value))
    return { ok: false, problem: `the result must be an object, null or undefined, not ${Array.isArray(value) ? "an array" : typeof value}` };
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (v === undefined) continue;
    if (!Object.hasOwn(FIELD_TYPES, key)) return { ok: false, problem: `unknown field "${key}" in the result` };
    const want = FIELD_TYPES[key as keyof TransformOverride];
    if (typeof v !== want) return { ok: false, problem: `field "${key}" must be a ${want}, not ${v === null ? "null" : typeof v}` };
    if (key === "kind" && v !== "wake" && v !== "agent") return { ok: false, problem: `field "kind" must be "wake" or "agent"` };
    out[key] = v;
  }
  return { ok: true, value: out as TransformOverride };
}
