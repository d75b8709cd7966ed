/**
 * The frame of every operator page, the host's (the embedded gateway's login form and refusals) and the
 * plugin's inspector pages alike: a skip link, a header with the page's navigation, the content, and scripts
 * and style sheets from `<base>/assets/` only (the pages' CSP allows no inline script or style). And the
 * refusal every operator surface answers: JSON `{ ok:false, code, error }` below `<base>/api/`, a small page
 * naming the code elsewhere.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { html, type SafeHtml } from "./html";
import { errorBody } from "./json-response";

export interface OperatorPageFrame {
  title: string;
  content: SafeHtml;
  /** Where the operator pages are mounted (`/ui`; OpenClaw `/inbound-webhooks/ui`): assets and links start with it. */
  base: string;
  /** The header's navigation (and a log-out form), when the page has one. */
  nav?: SafeHtml;
  /** Plugin whose pages these are. */
  source?: string;
  /** Asset file names (e.g. `deliveries.js`) loaded at the end of the body. */
  scripts?: readonly string[];
  /** Extra style sheets (e.g. `uPlot.min.css`). */
  styles?: readonly string[];
  /** Where the scripts and style sheets load from, when not `<base>/assets` (OpenClaw's frame: a path that needs no cookie). */
  assetsBase?: string;
}

export function operatorPage(frame: OperatorPageFrame): string {
  const assets = frame.assetsBase ?? `${frame.base}/assets`;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Gateway dashboard</title>
<link rel="icon" href="${assets}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${assets}/dashboard.css">
${(frame.styles ?? []).map((s) => html`<link rel="stylesheet" href="${assets}/${s}">`)}
</head>
<body data-base="${frame.base}">
<a class="skip" href="#main">Skip to content</a>
<header><p class="brand">Gateway dashboard${frame.source ? html` <span class="source">· ${frame.source}</span>` : ""}</p>${frame.nav ?? ""}</header>
<main id="main" tabindex="-1">
<h1>${frame.title}</h1>
${frame.content}
</main>
${(frame.scripts ?? []).map((s) => html`<script src="${assets}/${s}"></script>`)}
</body>
</html>
`;
  return page.value;
}

/** True for the operator surface's data routes (`<base>/api/*`), which answer JSON. */
export function isOperatorApiRequest(req: IncomingMessage, base: string): boolean {
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? "";
  return url.startsWith(`${base}/api/`);
}

/** A refusal: JSON below `<base>/api/`, a small page elsewhere; both carry the code. */
export function sendOperatorError(req: IncomingMessage, res: ServerResponse, base: string, status: number, code: string, message: string): void {
  const json = isOperatorApiRequest(req, base);
  const body = json
    ? JSON.stringify(errorBody(code, message))
    : operatorPage({
        base,
        title: "Refused",
        content: html`<p class="error" role="alert" data-code="${code}">${message} (${code})</p><p><a href="${base}/deliveries">Back to the dashboard</a></p>`,
      });
  res.statusCode = status;
  res.setHeader("Content-Type", json ? "application/json; charset=utf-8" : "text/html; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(req.method === "HEAD" ? undefined : body);
}

/** The pages' CSP: scripts, styles and connections of their own origin only; framed by nobody, or (`framed`) by the host's own origin. */
export function operatorContentSecurityPolicy(framed: boolean): string {
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors ${framed ? "'self'" : "'none'"}; base-uri 'none'`;
}

/** The headers of every operator answer: the CSP, no sniffing, no referrer, no caching, no framing but the host's own (`framed`). */
export function setOperatorSecurityHeaders(res: ServerResponse, framed = false): void {
  res.setHeader("Content-Security-Policy", operatorContentSecurityPolicy(framed));
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Frame-Options", framed ? "SAMEORIGIN" : "DENY");
  res.setHeader("Cache-Control", "no-store");
}
