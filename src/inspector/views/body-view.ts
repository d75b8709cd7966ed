/**
 * A stored request body made readable, always as text: JSON pretty-printed,
 * a urlencoded form as `name = value` lines, anything else as sent. A body that
 * is not UTF-8 is shown as base64. The caller escapes the text (it goes in a <pre>).
 */
export interface BodyText {
  /** `json`, `form`, `text`, `base64` or `none`. */
  kind: string;
  text: string;
}

export function bodyText(body: string | undefined, bodyBase64: string | undefined, contentType: string | undefined): BodyText {
  if (body === undefined) return bodyBase64 === undefined ? { kind: "none", text: "" } : { kind: "base64", text: bodyBase64 };
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") {
    return { kind: "form", text: [...new URLSearchParams(body)].map(([k, v]) => `${k} = ${v}`).join("\n") };
  }
  try {
    return { kind: "json", text: JSON.stringify(JSON.parse(body), null, 2) };
  } catch {
    return { kind: "text", text: body };
  }
}

/** Any JSON value as indented text (undefined → ""). */
export function prettyJson(value: unknown): string {
  return value === undefined ? "" : JSON.stringify(value, null, 2);
}
