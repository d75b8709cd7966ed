/**
 * Parser of the `{{ expr | filter: arg }}` template syntax (SPEC §6.2). It turns a
 * template string into parts once, at activation; rendering never parses or
 * evaluates code.
 *
 * Grammar:
 *   template := ( text | "{{" expr ( "|" filter )* "}}" )*
 *   expr     := string | ident ( "." ident | "[" ( integer | string ) "]" )*
 *   filter   := ident ( ":" arg ( "," arg )* )?
 *   arg      := string | number
 * Identifiers are `[A-Za-z0-9_$-]+` (so `headers.x-github-event` works); strings
 * use double or single quotes with `\` escapes.
 */

export type PathSegment = string | number;

export type TemplateExpr = { kind: "literal"; value: string } | { kind: "path"; segments: PathSegment[] };

export type FilterArg = string | number;

export interface FilterCall {
  name: string;
  args: FilterArg[];
}

export type TemplatePart =
  { kind: "text"; text: string } | { kind: "expr"; expr: TemplateExpr; filters: FilterCall[]; /** 1-based offset of its `{{`. */ position: number };

/** A template that is not well formed; `position` is the 1-based character offset of the problem. */
export class TemplateSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly position: number,
  ) {
    super(`${reason} at character ${position}`);
    this.name = "TemplateSyntaxError";
  }
}

const IDENT = /[A-Za-z0-9_$-]/;
const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", '"': '"', "'": "'" };

class Cursor {
  pos: number;
  constructor(
    readonly src: string,
    start: number,
  ) {
    this.pos = start;
  }
  peek(n = 0): string {
    return this.src.charAt(this.pos + n);
  }
  startsWith(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }
  skipSpace(): void {
    while (this.pos < this.src.length && /\s/.test(this.src.charAt(this.pos))) this.pos++;
  }
  fail(reason: string): never {
    throw new TemplateSyntaxError(reason, this.pos + 1);
  }
  ident(what: string): string {
    const start = this.pos;
    while (this.pos < this.src.length && IDENT.test(this.src.charAt(this.pos))) this.pos++;
    if (this.pos === start) this.fail(`expected ${what}`);
    return this.src.slice(start, this.pos);
  }
  string(): string {
    const quote = this.peek();
    this.pos++;
    let out = "";
    while (this.pos < this.src.length) {
      const c = this.src.charAt(this.pos);
      if (c === quote) {
        this.pos++;
        return out;
      }
      if (c === "\\") {
        const next = this.src.charAt(this.pos + 1);
        const mapped = ESCAPES[next];
        if (mapped === undefined) this.fail(`unknown escape "\\${next}"`);
        out += mapped;
        this.pos += 2;
        continue;
      }
      out += c;
      this.pos++;
    }
    return this.fail("unterminated string");
  }
  number(): number {
    const m = /^-?\d+(\.\d+)?/.exec(this.src.slice(this.pos));
    if (!m) this.fail("expected a number");
    this.pos += m[0].length;
    return Number(m[0]);
  }
}

function isQuote(c: string): boolean {
  return c === '"' || c === "'";
}

function parseExpr(cur: Cursor): TemplateExpr {
  if (isQuote(cur.peek())) return { kind: "literal", value: cur.string() };
  const segments: PathSegment[] = [cur.ident("a name or a quoted string")];
  for (;;) {
    if (cur.peek() === ".") {
      cur.pos++;
      segments.push(cur.ident("a name after '.'"));
    } else if (cur.peek() === "[") {
      cur.pos++;
      cur.skipSpace();
      if (isQuote(cur.peek())) segments.push(cur.string());
      else {
        const m = /^\d+/.exec(cur.src.slice(cur.pos));
        if (!m) cur.fail("expected an index or a quoted key inside [ ]");
        cur.pos += m[0].length;
        segments.push(Number(m[0]));
      }
      cur.skipSpace();
      if (cur.peek() !== "]") cur.fail("expected ']'");
      cur.pos++;
    } else {
      return { kind: "path", segments };
    }
  }
}

function parseFilter(cur: Cursor): FilterCall {
  cur.skipSpace();
  const name = cur.ident("a filter name after '|'");
  const args: FilterArg[] = [];
  cur.skipSpace();
  if (cur.peek() === ":") {
    cur.pos++;
    for (;;) {
      cur.skipSpace();
      args.push(isQuote(cur.peek()) ? cur.string() : cur.number());
      cur.skipSpace();
      if (cur.peek() !== ",") break;
      cur.pos++;
    }
  }
  return { name, args };
}

/** Splits a template into literal text and expressions. Throws TemplateSyntaxError. */
export function parseTemplate(source: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf("{{", i);
    if (open === -1) {
      parts.push({ kind: "text", text: source.slice(i) });
      break;
    }
    if (open > i) parts.push({ kind: "text", text: source.slice(i, open) });
    const cur = new Cursor(source, open + 2);
    cur.skipSpace();
    if (cur.pos >= source.length) throw new TemplateSyntaxError("unclosed '{{'", open + 1);
    if (cur.startsWith("}}")) cur.fail("empty expression");
    const expr = parseExpr(cur);
    const filters: FilterCall[] = [];
    for (;;) {
      cur.skipSpace();
      if (cur.startsWith("}}")) break;
      if (cur.pos >= source.length) throw new TemplateSyntaxError("unclosed '{{'", open + 1);
      if (cur.peek() !== "|") cur.fail(`unexpected "${cur.peek()}" (expected '|' or '}}')`);
      cur.pos++;
      filters.push(parseFilter(cur));
    }
    parts.push({ kind: "expr", expr, filters, position: open + 1 });
    i = cur.pos + 2;
  }
  return parts;
}
