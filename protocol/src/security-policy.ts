// No imports: it is read where only the protocol's sources are (nginx's config renderer).

/**
 * The response-header policy of Taco Chat, written once: the api sends it (helmet, configured in
 * security-headers.ts) and nginx sends the same headers on the files it serves (its config is rendered from
 * `securityHeaders()`). Every value is stated, none left to a library default, so both always
 * say the same; a test compares the api's actual headers with `securityHeaders()`.
 */

/**
 * The one inline script the web client has: web/index.html sets the colour mode before the first
 * paint with it. Its SHA-256, so that the policy allows exactly that script and nothing else
 * inline; the browser tests (web/e2e/delivery.e2e.test.ts) check it against the built page.
 */
export const THEME_SCRIPT_HASH = "'sha256-MxI/HE4IrXcxewqT/kl11RgK6QgiXMrAQOY+q9rSCFY='";

/** The web client works under this policy: its own scripts, styles and socket, nothing inline but the script above. */
export const CONTENT_SECURITY_POLICY: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'", THEME_SCRIPT_HASH],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'manifest-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

export const HSTS = { maxAge: 365 * 24 * 60 * 60, includeSubDomains: true };
/** Not one of helmet's headers: set beside it. */
export const PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=()';

/** Every header of the policy, as nginx writes it: `[name, value]`. */
export function securityHeaders(): [string, string][] {
  const csp = Object.entries(CONTENT_SECURITY_POLICY)
    .map(([directive, sources]) => `${directive} ${sources.join(' ')}`)
    .join(';');
  const hsts = `max-age=${HSTS.maxAge}${HSTS.includeSubDomains ? '; includeSubDomains' : ''}`;
  return [
    ['Content-Security-Policy', csp],
    ['Cross-Origin-Opener-Policy', 'same-origin'],
    ['Cross-Origin-Resource-Policy', 'same-origin'],
    ['Origin-Agent-Cluster', '?1'],
    ['Referrer-Policy', 'no-referrer'],
    ['Strict-Transport-Security', hsts],
    ['X-Content-Type-Options', 'nosniff'],
    ['X-DNS-Prefetch-Control', 'off'],
    ['X-Download-Options', 'noopen'],
    ['X-Frame-Options', 'DENY'],
    ['X-Permitted-Cross-Domain-Policies', 'none'],
    ['X-XSS-Protection', '0'],
    ['Permissions-Policy', PERMISSIONS_POLICY],
  ];
}
