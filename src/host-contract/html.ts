/**
 * The dashboard's one escaping rule: every value interpolated into markup goes
 * through `escapeHtml` (the five HTML-significant characters), unless it is
 * already `SafeHtml` — markup built by `html` itself. Nothing else produces
 * SafeHtml, so a hook name, header or body can only ever appear as text.
 *
 * @example
 *   html`<td>${delivery.hook}</td>`;            // "<script>" → "&lt;script&gt;"
 *   html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`;
 */

/** Markup produced by `html` (already escaped). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text → markup that shows exactly that text (in element content and quoted attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A value for interpolation: SafeHtml as is, arrays joined, null/undefined/false as nothing, the rest escaped as text. */
function piece(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(piece).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

/** Tagged template: the literal parts are trusted markup, every interpolation is escaped. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += piece(v) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}
