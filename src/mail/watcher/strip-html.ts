/**
 * The fallback of htmlToPlainText (text-bounds.ts) for HTML that html-to-text
 * cannot convert: its walk recurses once per level of nesting, so 4 000 nested
 * (often unclosed) tags overflow the stack. One linear pass instead: tags are
 * dropped (block tags become line breaks), `<script>`/`<style>` content is
 * skipped, the common character references are decoded. Less faithful than
 * html-to-text (no lists, tables or upper-case headings), but never fails.
 */

const BLOCK_TAGS = new Set(["p", "br", "div", "li", "tr", "table", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "hr"]);
const SKIPPED_TAGS = new Set(["script", "style"]);
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

function decodeReference(ref: string): string | undefined {
  if (ref.startsWith("#x") || ref.startsWith("#X")) return codePoint(Number.parseInt(ref.slice(2), 16));
  if (ref.startsWith("#")) return codePoint(Number.parseInt(ref.slice(1), 10));
  return Object.hasOwn(NAMED, ref.toLowerCase()) ? NAMED[ref.toLowerCase()] : undefined;
}

function codePoint(n: number): string | undefined {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : undefined;
}

/** Decodes `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;` and numeric references; others stay as written. */
function decodeText(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#\d{1,7}|[A-Za-z]{2,6});/g, (all, ref: string) => decodeReference(ref) ?? all);
}

/** The tag's lower-cased name (`p` of `<p class=x>`, `/p` of `</p>`), from the text between `<` and `>`. */
function tagName(inner: string): string {
  const m = /^\/?[A-Za-z][A-Za-z0-9]{0,15}/.exec(inner);
  return m ? m[0].toLowerCase() : "";
}

/** Plain text of `html` in one pass, linear in its length. */
export function stripHtml(html: string): string {
  // ASCII letters only: toLowerCase() lengthens some characters (İ → i̇), which would shift every index after them.
  const lower = html.replace(/[A-Z]+/g, (run) => run.toLowerCase());
  const out: string[] = [];
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf("<", at);
    if (open === -1) {
      out.push(decodeText(html.slice(at)));
      break;
    }
    out.push(decodeText(html.slice(at, open)));
    const close = html.indexOf(">", open + 1);
    if (close === -1) break; // an unfinished tag at the end: dropped
    const name = tagName(html.slice(open + 1, Math.min(close, open + 18)));
    at = close + 1;
    if (BLOCK_TAGS.has(name.replace("/", ""))) out.push("\n");
    if (SKIPPED_TAGS.has(name)) {
      const end = lower.indexOf(`</${name}`, at);
      if (end === -1) break;
      at = lower.indexOf(">", end);
      at = at === -1 ? html.length : at + 1;
    }
  }
  return out.join("");
}
