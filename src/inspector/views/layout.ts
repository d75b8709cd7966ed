/**
 * The inspector's page frame: the navigation between its pages (real links) and, for a login the host can end
 * there, a log-out button, inside the operator page frame every host's pages share (host-contract/operator-page.ts:
 * scripts and style sheets from `<base>/assets/` only, as the CSP allows no inline script).
 */
import { html, type SafeHtml } from "../../host-contract/html";
import { CSRF_FIELD } from "../../host-contract/csrf";
import { operatorPage } from "../../host-contract/operator-page";

export type UiSection = "deliveries" | "mappings" | "overview";

export interface PageFrame {
  title: string;
  section: UiSection;
  content: SafeHtml;
  /** Where the host mounts the pages (`/ui`; OpenClaw `/inbound-webhooks/ui`). */
  base: string;
  /** The session's CSRF token (cookie sessions)… */
  csrf?: string;
  /** …and the host's log-out form action: both given, the log-out button shows. */
  logoutPath?: string;
  /** Plugin whose inspector the pages show. */
  source?: string;
  /** Asset file names (e.g. `deliveries.js`) loaded at the end of the body. */
  scripts?: string[];
  /** Extra stylesheets (e.g. `uPlot.min.css`). */
  styles?: string[];
  /** Where scripts and style sheets load from, when not `<base>/assets` (OperatorRouteContext.assetsBase). */
  assetsBase?: string;
}

const NAV: Array<{ section: UiSection; page: string; label: string }> = [
  { section: "deliveries", page: "/deliveries", label: "Deliveries" },
  { section: "mappings", page: "/mappings", label: "Mappings" },
  { section: "overview", page: "/overview", label: "Overview" },
];

export function renderPage(frame: PageFrame): string {
  const nav = html`<nav aria-label="Dashboard"><ul>${NAV.map(
    (n) => html`<li><a href="${frame.base}${n.page}"${n.section === frame.section ? html` aria-current="page"` : ""}>${n.label}</a></li>`,
  )}</ul>${
    frame.csrf && frame.logoutPath
      ? html`<form method="post" action="${frame.logoutPath}" class="logout"><input type="hidden" name="${CSRF_FIELD}" value="${frame.csrf}"><button type="submit">Log out</button></form>`
      : ""
  }</nav>`;
  return operatorPage({
    title: frame.title,
    content: frame.content,
    base: frame.base,
    nav,
    ...(frame.source ? { source: frame.source } : {}),
    ...(frame.scripts ? { scripts: frame.scripts } : {}),
    ...(frame.styles ? { styles: frame.styles } : {}),
    ...(frame.assetsBase ? { assetsBase: frame.assetsBase } : {}),
  });
}
