import { type RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The response-header policy of Taco Chat, written once: the api sends it (helmet, configured
 * here) and nginx sends the same headers on the files it serves (its config is rendered from
 * `securityHeaders()`). Every value is stated, none left to a library default, so both always
 * say the same; a test compares the api's actual headers with `securityHeaders()`.
 */

/** The web client works under this policy: its own scripts, styles and socket, nothing inline. */
const CONTENT_SECURITY_POLICY: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
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

const HSTS = { maxAge: 365 * 24 * 60 * 60, includeSubDomains: true };
/** Not one of helmet's headers: set beside it. */
const PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=()';

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

/** The api's side of the policy: helmet with every option stated, then Permissions-Policy. */
export function securityHeadersMiddleware(): RequestHandler[] {
  return [
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
      crossOriginEmbedderPolicy: false,
      crossOriginOpenerPolicy: { policy: 'same-origin' },
      crossOriginResourcePolicy: { policy: 'same-origin' },
      originAgentCluster: true,
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: HSTS,
      xContentTypeOptions: true,
      xDnsPrefetchControl: { allow: false },
      xDownloadOptions: true,
      xFrameOptions: { action: 'deny' },
      xPermittedCrossDomainPolicies: { permittedPolicies: 'none' },
      xPoweredBy: true,
      xXssProtection: true,
    }),
    (_request, response, next) => {
      response.setHeader('Permissions-Policy', PERMISSIONS_POLICY);
      next();
    },
  ];
}
