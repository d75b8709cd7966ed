/** Injectable time source of the runs module (epoch milliseconds). */
export type Clock = () => number;

/** The real clock. */
export const systemClock: Clock = () => Date.now();

/** ISO-8601 UTC timestamp of a clock reading. */
export function isoAt(clock: Clock): string {
  return new Date(clock()).toISOString();
}
