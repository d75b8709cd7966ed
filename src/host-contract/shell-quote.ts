/**
 * Quotes a path for the commands the CLIs print (`mail setup`'s next steps and chmod
 * hints, the demo start's curl line) so they can be pasted into a POSIX shell as they are.
 *
 * @example shellQuote("/home/me/gateway.config.json") // "/home/me/gateway.config.json"
 * @example shellQuote("/home/me/my config.json") // "'/home/me/my config.json'"
 */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
