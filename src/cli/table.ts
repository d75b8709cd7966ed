/**
 * A plain text table for the CLI: a header row and left-aligned columns separated by
 * two spaces, each as wide as its widest cell; `empty` when there are no rows.
 *
 * @example formatTable(["ID", "STATUS"], [["r1", "ok"]], "none") // "ID  STATUS\nr1  ok\n"
 */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, empty: string): string {
  if (rows.length === 0) return `${empty}\n`;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}
