/**
 * How `gateway webhooks deliveries|runs …` and `webhooks test --delivery` reach the
 * running gateway: over HTTP, at `hooks.path` of the gateway this config belongs to
 * (`http://<gateway.bind>:<gateway.port><hooks.path>`, like the mail watcher's
 * hook URL; `--url` overrides it), with the hook token from the config. A gateway
 * that does not answer is reported in one sentence naming the URL.
 *
 * @example
 *   const client = createGatewayClient({ baseUrl: "http://127.0.0.1:18789/hooks", token });
 *   const { deliveries } = await client.get("/deliveries?limit=20");
 */
import { createErrorCatalogue } from "../host-contract/error-catalogue";

export const GATEWAY_CLIENT_CATALOGUE = {
  unreachable: { message: "the gateway is not reachable at {url} ({reason}); start it with `gateway start`, or pass --url <hooks URL>" },
  notJson: { message: "the gateway at {url} answered {status} without a JSON body; is --url the hooks path of this gateway?" },
  refused: { message: "{url} answered {status} {code}: {error}" },
  hooksDisabled: { message: "hooks are not enabled in this config (hooks.enabled is not true), so there is no hook route to ask" },
  urlInvalid: { message: '--url must be the http:// or https:// URL of the gateway\'s hooks path, e.g. http://127.0.0.1:18789/hooks (got "{got}")' },
  idInvalid: {
    message:
      '"{id}" is not an id: a delivery or run id is one path segment (such as 019a7c3e-5f1b-7c2d-9e4f-0123456789ab), not . or .. or nothing; nothing was sent',
  },
} as const;

/** A failure the command reports on stderr with exit code 1. */
export class GatewayClientError extends Error {
  override readonly name = "GatewayClientError";
}

export const gatewayClientErrors = createErrorCatalogue(GATEWAY_CLIENT_CATALOGUE, ({ message }) => new GatewayClientError(message));

/**
 * An id as one path segment of a request. `.` and `..` are path steps to every URL parser
 * (`deliveries/../replay` is `{path}/replay`), and nothing is no segment: those are refused
 * before any request. Anything else is percent-encoded.
 *
 * @example idSegment("019a…") // "019a…"; idSegment("..") throws
 */
export function idSegment(id: string): string {
  if (id === "" || id === "." || id === "..") throw gatewayClientErrors.idInvalid({ id });
  return encodeURIComponent(id);
}

export interface GatewayAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | undefined;
}

export interface GatewayClient {
  readonly baseUrl: string;
  /** GET; a non-2xx answer throws with the gateway's code and sentence. */
  get(path: string): Promise<Record<string, unknown>>;
  /** POST without a body; any answer is returned (a replay's answer may be an error on purpose). `timeoutMs`: longer than a read's (a bulk replay). */
  post(path: string, opts?: { timeoutMs?: number }): Promise<GatewayAnswer>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Whether `url` is an absolute http(s) URL (what `--url` must be). */
function isAbsoluteHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

export function createGatewayClient(opts: { baseUrl: string; token: string; timeoutMs?: number }): GatewayClient {
  // Refused before any request (was: "not reachable at notaurl (ERR_INVALID_URL); start it with `gateway start`").
  if (!isAbsoluteHttpUrl(opts.baseUrl)) throw gatewayClientErrors.urlInvalid({ got: opts.baseUrl });
  const baseUrl = opts.baseUrl.replace(/\/+$/, "");
  async function send(method: "GET" | "POST", path: string, timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS): Promise<GatewayAnswer> {
    const url = `${baseUrl}${path}`;
    let res: Response;
    try {
      res = await fetch(url, { method, headers: { authorization: `Bearer ${opts.token}` }, signal: AbortSignal.timeout(timeoutMs) });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw gatewayClientErrors.unreachable({ url: baseUrl, reason: cause?.code ?? cause?.message ?? (e as Error).message });
    }
    const text = await res.text();
    let body: Record<string, unknown> | undefined;
    if (text !== "") {
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw gatewayClientErrors.notJson({ url, status: res.status });
      }
    }
    return { status: res.status, headers: res.headers, body };
  }
  return {
    baseUrl,
    async get(path) {
      const answer = await send("GET", path);
      if (answer.status < 200 || answer.status > 299 || !answer.body) {
        throw gatewayClientErrors.refused({
          url: `${baseUrl}${path}`,
          status: answer.status,
          code: String(answer.body?.code ?? ""),
          error: String(answer.body?.error ?? ""),
        });
      }
      return answer.body;
    },
    post: (path, o) => send("POST", path, o?.timeoutMs),
  };
}
