/** The login form: the only thing `/ui` shows without a valid session or token. */
import { html } from "../../../host-contract/html";
import { operatorPage } from "../../../host-contract/operator-page";

export function renderLogin(opts: { next: string; error?: string }): string {
  return operatorPage({
    title: "Log in",
    base: "/ui",
    content: html`${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ""}
<form method="post" action="/ui/login" class="login">
<input type="hidden" name="next" value="${opts.next}">
<label for="token">Operator token (<code>gateway.auth.token</code>)</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Log in</button>
</form>`,
  });
}
