/**
 * Durations in config (`agents.defaults.heartbeat.every`): "30m", "45s", "1h",
 * "500ms", "1h30m"; `0`, "0" and "off" mean disabled (returns 0).
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds, 0 for disabled, or undefined when the value is not a duration. */
export function parseDuration(value: unknown): number | undefined {
  if (value === 0 || value === "0" || value === "off" || value === false) return 0;
  if (typeof value !== "string") return undefined;
  const text = value.trim().toLowerCase();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return Math.round(total);
}
