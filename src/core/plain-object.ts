/** True when `v` is a plain object: not null, not an array, not a Date, Map or class instance with its own tag. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.prototype.toString.call(v) === "[object Object]";
}

/** A value read from untrusted or unvalidated JSON, as a plain object: `{}` when it is missing, null, an array or a scalar. */
export function plainObject(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? v : {};
}
