import { API_PREFIX, CONTENT_SECURITY_POLICY, HSTS, PERMISSIONS_POLICY } from '@taco/protocol';
import { type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';

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

/**
 * The headers `securityHeadersMiddleware` sets, as it sets them (helmet run once on a recorder):
 * for a route answered before Express, which must send exactly the same.
 */
export function securityHeadersOfMiddleware(): [string, string][] {
  const headers = new Map<string, [string, string]>();
  const recorder = {
    setHeader(name: string, value: number | string | readonly string[]) {
      headers.set(name.toLowerCase(), [name, String(value)]);
      return recorder;
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
  };
  for (const middleware of securityHeadersMiddleware()) {
    middleware({} as Request, recorder as unknown as Response, () => undefined);
  }
  return [...headers.values()];
}

/**
 * `Cache-Control` of every API answer: live state (presence, health, metrics, a free room name)
 * or a credential (a token, a ticket), never to be kept by a browser, a proxy or the back/forward
 * cache. Static files are the web server's to cache.
 */
export const API_CACHE_CONTROL = 'no-store';

/** Marks every answer under `/api` as not to be stored (`API_CACHE_CONTROL`), errors included. */
export function apiCacheControl(): RequestHandler {
  return (request, response, next) => {
    if (request.path.startsWith(`${API_PREFIX}/`)) {
      response.setHeader('Cache-Control', API_CACHE_CONTROL);
    }
    next();
  };
}
