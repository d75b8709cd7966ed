/** Fixed texts and values the hooks pipeline sends besides its coded errors. */

/** Retry-After sent while the gateway shuts down. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

/** Sent with every response authenticated by `?token=`. */
export const QUERY_TOKEN_WARNING = '299 - "The token query parameter is deprecated and will be removed; send Authorization: Bearer <token> instead."';

/**
 * Logged (rate-limited) for a request authenticated by the query token. Worded so
 * that the log redaction has nothing to mangle: no `?token=` and no `Bearer <x>`.
 */
export const QUERY_TOKEN_LOG_MESSAGE = "hook token sent in the query string (deprecated); send it in the Authorization header instead";
