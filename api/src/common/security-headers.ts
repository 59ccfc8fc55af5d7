import { type RequestHandler } from 'express';
import helmet from 'helmet';
import { CONTENT_SECURITY_POLICY, HSTS, PERMISSIONS_POLICY } from './security-policy';

export { securityHeaders } from './security-policy';

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
