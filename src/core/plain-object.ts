/** A value read from untrusted or unvalidated JSON, as a plain object: `{}` when it is missing, null, an array or a scalar. */
export function plainObject(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
