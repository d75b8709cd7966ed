/**
 * Turns ajv validation errors into "<dotted key> <rule>" sentences, so every
 * config problem names the key (e.g. `gateway.port must be integer`).
 */
import type { ErrorObject } from "ajv";

/** `/a/0/b` under `root` → `root.a[0].b`. */
export function keyOf(root: string, instancePath: string): string {
  let key = root;
  for (const raw of instancePath.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(part)) key += `[${part}]`;
    else key += key === "" ? part : `.${part}`;
  }
  return key;
}

export interface KeyedProblem {
  key: string;
  rule: string;
}

/** One problem per ajv error, most specific key first. */
export function describeAjvError(root: string, e: ErrorObject): KeyedProblem {
  const key = keyOf(root, e.instancePath);
  const p = e.params as Record<string, unknown>;
  const join = (k: string) => (key === "" ? k : `${key}.${k}`);
  switch (e.keyword) {
    case "required":
      return { key: join(String(p.missingProperty)), rule: "is required" };
    case "additionalProperties":
      return { key: join(String(p.additionalProperty)), rule: "is not a known key" };
    case "type":
      return { key, rule: `must be ${Array.isArray(p.type) ? p.type.join(" or ") : String(p.type)}` };
    case "enum":
      return { key, rule: `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` };
    case "const":
      return { key, rule: `must be ${JSON.stringify(p.allowedValue)}` };
    case "minLength":
      return { key, rule: Number(p.limit) === 1 ? "must not be empty" : `must be at least ${String(p.limit)} characters` };
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return { key, rule: `must be ${String(p.comparison)} ${String(p.limit)}` };
    default:
      return { key, rule: e.message ?? `is invalid (${e.keyword})` };
  }
}

/** The first problem of a failed validation (ajv puts the deepest errors first with allErrors off). */
export function firstProblem(root: string, errors: ErrorObject[] | null | undefined): KeyedProblem {
  const list = errors ?? [];
  const pick = list.find((e) => e.keyword !== "anyOf" && e.keyword !== "oneOf" && e.keyword !== "if") ?? list[0];
  if (!pick) return { key: root, rule: "is invalid" };
  return describeAjvError(root, pick);
}
