/**
 * The `json: N` filter's indentation, applied to compact JSON text in one pass
 * and bounded: `JSON.stringify(value, null, N)` adds N spaces per level on every
 * line, so 240 KB of a 60-deep payload became 72 MB in one call (175 ms holding
 * the event loop) before the template's byte budget could refuse it. Here the
 * output stops once it is longer than `maxChars` (the caller refuses it then).
 * The text is the same as JSON.stringify's for any output within the bound.
 */

/**
 * `compact` (JSON.stringify without indentation) indented by `indent` spaces, cut
 * right after it passes `maxChars` characters.
 *
 * @example indentJson('{"a":[1,2],"b":{}}', 2) // '{\n  "a": [\n    1,\n    2\n  ],\n  "b": {}\n}'
 */
export function indentJson(compact: string, indent: number, maxChars = Infinity): string {
  if (indent === 0) return compact; // JSON.stringify's indent 0 is no indentation at all
  const pad = " ".repeat(indent);
  const parts: string[] = [];
  let length = 0;
  let depth = 0;
  const push = (s: string): void => {
    parts.push(s);
    length += s.length;
  };
  const newline = (): void => push(`\n${pad.repeat(depth)}`);
  for (let i = 0; i < compact.length && length <= maxChars; i++) {
    const c = compact.charAt(i);
    if (c === '"') {
      let end = i + 1;
      while (end < compact.length && compact.charAt(end) !== '"') end += compact.charAt(end) === "\\" ? 2 : 1;
      push(compact.slice(i, end + 1));
      i = end;
    } else if (c === "{" || c === "[") {
      const close = compact.charAt(i + 1);
      if (close === "}" || close === "]") {
        push(c + close);
        i++;
        continue;
      }
      push(c);
      depth++;
      newline();
    } else if (c === "}" || c === "]") {
      depth--;
      newline();
      push(c);
    } else if (c === ",") {
      push(c);
      newline();
    } else if (c === ":") {
      push(": ");
    } else {
      push(c);
    }
  }
  return parts.join("");
}
