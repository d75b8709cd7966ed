/**
 * The page frame every dashboard page shares: a skip link, the navigation
 * (real links), a logout button for cookie sessions, the page's content and its
 * scripts (files under /ui/assets only: the CSP allows no inline script).
 */
import { html, type SafeHtml } from "../html";
import { CSRF_FIELD } from "../ui-auth";

export type UiSection = "deliveries" | "mappings" | "overview" | "login";

export interface PageFrame {
  title: string;
  section: UiSection;
  content: SafeHtml;
  /** The session's CSRF token (cookie sessions: shows the logout button). */
  csrf?: string;
  /** Plugin whose inspector the pages show. */
  source?: string;
  /** Asset file names (e.g. `deliveries.js`) loaded at the end of the body. */
  scripts?: string[];
  /** Extra stylesheets (e.g. `uPlot.min.css`). */
  styles?: string[];
}

const NAV: Array<{ section: UiSection; href: string; label: string }> = [
  { section: "deliveries", href: "/ui/deliveries", label: "Deliveries" },
  { section: "mappings", href: "/ui/mappings", label: "Mappings" },
  { section: "overview", href: "/ui/overview", label: "Overview" },
];

export function renderPage(frame: PageFrame): string {
  const nav =
    frame.section === "login"
      ? html``
      : html`<nav aria-label="Dashboard"><ul>${NAV.map(
          (n) => html`<li><a href="${n.href}"${n.section === frame.section ? html` aria-current="page"` : ""}>${n.label}</a></li>`,
        )}</ul>${
          frame.csrf
            ? html`<form method="post" action="/ui/logout" class="logout"><input type="hidden" name="${CSRF_FIELD}" value="${frame.csrf}"><button type="submit">Log out</button></form>`
            : ""
        }</nav>`;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Gateway dashboard</title>
<link rel="icon" href="/ui/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/ui/assets/dashboard.css">
${(frame.styles ?? []).map((s) => html`<link rel="stylesheet" href="/ui/assets/${s}">`)}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><p class="brand">Gateway dashboard${frame.source ? html` <span class="source">· ${frame.source}</span>` : ""}</p>${nav}</header>
<main id="main" tabindex="-1">
<h1>${frame.title}</h1>
${frame.content}
</main>
${(frame.scripts ?? []).map((s) => html`<script src="/ui/assets/${s}"></script>`)}
</body>
</html>
`;
  return page.value;
}
