/**
 * An operator route (host API 2.1; docs/host-contract.md `registerOperatorRoute`): a plugin's pages or data for
 * the gateway's operator, behind the operator authentication each host provides — the embedded gateway's operator
 * token, login form and one-time login link (a cookie session) at `/ui`; inside OpenClaw its own gateway auth
 * (`auth: "gateway"`: the gateway token as Bearer, or the Control UI frame's read-only grant) below
 * `/inbound-webhooks`. The host authenticates every request before the handler sees it; an unauthenticated one
 * never reaches it.
 *
 * @example
 *   api.registerOperatorRoute?.({ path: "/ui", handler: (req, res, ctx) => pages(req, res, ctx) });
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpRouteContext } from "./http-route";
import type { JournalEntry } from "./journal";

/** The largest form body an operator page posts (a dry-run payload is the largest), and its most fields: the host reads no more to check a CSRF token. */
export const OPERATOR_FORM_LIMIT = "1mb";
export const OPERATOR_FORM_FIELDS = 50;

/** The operator a request comes from, as the host authenticated it. */
export interface OperatorPrincipal {
  /** Stable for one login (`session:<id>`, `bearer`, `gateway`): keys what the route keeps per operator (a form's result). */
  readonly id: string;
  /**
   * The CSRF token a state-changing form of this login carries (field `_csrf`, host-contract/csrf.ts), when the
   * login is an ambient credential (a cookie session). The host checks it, and the request's origin, before it
   * hands over anything but GET and HEAD; a page only puts it into its forms.
   */
  readonly csrf?: string;
  /**
   * False where the host hands over GET and HEAD only (OpenClaw: its Control UI frame's grant is read-only): the
   * route offers no form that posts (it says how else to do it) and the host answers other methods itself.
   */
  readonly canWrite: boolean;
  /** False once the login has ended (logged out, expired): a long-lived answer (a live feed) ends at its next event. */
  active(): boolean;
  /** The host's log-out form action, when its login can end there (the embedded gateway: `/ui/logout`). */
  readonly logoutPath?: string;
  /** The host's login page, which takes `?next=<path>` (the embedded gateway: `/ui/login`); absent: the host has none of its own. */
  readonly loginPath?: string;
  /** Where the host checks that the login still holds (200 while it does, 401 after); absent: the host offers none. */
  readonly sessionCheckPath?: string;
}

/** What the host tells an operator route's handler about the request it hands over. */
export interface OperatorRouteContext extends HttpRouteContext {
  /** Where the host mounts the route, as the browser addresses it (`/ui`; OpenClaw `/inbound-webhooks/ui`): the route's links start with it. */
  readonly base: string;
  readonly operator: OperatorPrincipal;
  /**
   * The fields of a form body the host read to check its CSRF token (a POST of `application/x-www-form-urlencoded`):
   * the body is then consumed. Absent: the body is unread.
   */
  readonly form?: Readonly<Record<string, unknown>>;
  /** The newest entries of the host's journal (what a delivery changed in a session), when the host keeps one. */
  journal?(): readonly JournalEntry[];
  /** True when the host shows the answer inside a frame of its own UI (OpenClaw's Control UI tab): the route's pages may be framed by the host's own origin. */
  readonly framed?: boolean;
  /** The command line the plugin's CLI commands run under in this host (`gateway webhooks`; OpenClaw `openclaw inbound-webhooks`), for a page that offers a command. */
  readonly cli?: string;
  /**
   * The command that calls one of the route's `methods` through the running host, where the host serves them
   * (OpenClaw: `openclaw gateway call inbound-webhooks.<name> --params '<json>'`): what a read-only page offers
   * instead of a form. Absent: the host serves no methods.
   */
  methodCommand?(name: string, params: Readonly<Record<string, unknown>>): string;
  /**
   * Where the page's scripts and style sheets load from (`<assetsBase>/<file>`), when not `<base>/assets`: OpenClaw
   * serves them to its sandboxed frame below a path that needs no cookie (the frame's sub-requests carry none).
   */
  readonly assetsBase?: string;
  /** Where the page's live feed opens (`<liveFeedBase>/api/events`), when not `<base>`: OpenClaw's is a capability URL, for the same reason. */
  readonly liveFeedBase?: string;
}

/** Why an operator method refuses (rejects with it): a 4xx status, a code of docs/errors.md and one sentence. */
export interface OperatorMethodRefusal {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/**
 * An operation of the operator's that is not a page (host API 2.2, optional: a host may serve none): inside OpenClaw
 * a gateway method `inbound-webhooks.<name>` (`api.registerGatewayMethod`, scope `operator.write` when `write`), which
 * the Control UI frame cannot post to but a gateway client can (`openclaw gateway call`). It resolves to its answer
 * (plain JSON) or rejects with an OperatorMethodRefusal (anything else is the host's internal error).
 */
export interface OperatorMethod {
  /** True when it changes something: the host requires its write grant. */
  readonly write: boolean;
  handle(params: Readonly<Record<string, unknown>>, context: { readonly clientAddress: string }): Promise<unknown>;
}

/**
 * An operator route's handler: the host's node:http request and response, `req.url` as the client sent it (the
 * base included). It answers every request it is handed, on `res`, and does not throw.
 */
export type OperatorRouteHandler = (req: IncomingMessage, res: ServerResponse, context: OperatorRouteContext) => void;

export interface OperatorRouteRegistration {
  /** The route's own segment, `/ui`: the host mounts it below its operator prefix (the embedded gateway: none; OpenClaw: `/inbound-webhooks`). */
  path: string;
  handler: OperatorRouteHandler;
  /**
   * Static files that carry no data (style sheets, scripts, icons), below `<base>/assets/`: handed over without a
   * login (the embedded gateway's login page uses the style sheet). The context has no operator.
   */
  assets?: (req: IncomingMessage, res: ServerResponse, context: { readonly base: string }) => void;
  /** Counts for the host's operator status (`/api/status`): top-level keys of its answer (no paths, no secrets). */
  status?(): Record<string, unknown>;
  /** Ends the route's long-lived answers (live feeds); the host calls it before it stops serving. */
  close?(): void;
  /** Its operations that are not pages, by name (`deliveries.replay`): served where the host has a surface for them (OperatorMethod). */
  readonly methods?: Readonly<Record<string, OperatorMethod>>;
}
