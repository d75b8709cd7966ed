/**
 * The dashboard's one clock: every time is shown in UTC, 24-hour. Lists show a
 * relative time ("5 min ago") with the exact UTC time on hover; the browser keeps
 * the relative texts current with the same rule (assets/deliveries.js, relTime).
 */

/** `2026-11-22T17:24:24.123Z` → `2026-11-22 17:24:24`. */
export function displayTime(iso: string): string {
  return iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "");
}

/** `3 s ago`, `12 min ago`, `5 h ago`; older than a day: `2026-11-22 17:24` (UTC). */
export function relativeTime(iso: string, nowMs: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.max(0, Math.floor((nowMs - t) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return displayTime(iso).slice(0, 16);
}
