/**
 * Where an operator form carries its CSRF token (host API 1.5): the form field a
 * page's state-changing forms hold it in, or the header a script sends it as. The
 * host that issues a cookie session keeps the token (the embedded gateway's login)
 * and the pages that render forms write it (the plugin's inspector): both read these
 * names from here.
 */

/** Form field of the session's CSRF token. */
export const CSRF_FIELD = "_csrf";
/** Header a script sends the token in instead. */
export const CSRF_HEADER = "x-csrf-token";
