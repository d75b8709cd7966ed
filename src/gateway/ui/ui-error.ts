/** The dashboard's refusals: JSON `{ ok:false, code, error }` under /ui/api, a small page naming the code elsewhere. */
import type { Request, Response } from "express";
import { html } from "./html";
import { renderPage } from "./views/layout";

/** True for the dashboard's data routes (`/ui/api/*`), which answer JSON. */
export function isUiApiRequest(req: Request): boolean {
  return req.originalUrl.startsWith("/ui/api/");
}

/** An error answer: JSON under /ui/api, a small page elsewhere; both carry the code. */
export function sendUiError(req: Request, res: Response, status: number, code: string, message: string): void {
  res.status(status);
  if (isUiApiRequest(req)) {
    res.json({ ok: false, code, error: message });
    return;
  }
  res.type("html").send(renderPage({ title: "Refused", section: "login", content: html`<p class="error" role="alert" data-code="${code}">${message} (${code})</p><p><a href="/ui/deliveries">Back to the dashboard</a></p>` }));
}
