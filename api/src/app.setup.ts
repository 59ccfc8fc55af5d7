import { type NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { type Logger as PinoInstance } from 'pino';
import { API_PREFIX } from '@taco/protocol';
import { RoomWsAdapter } from './chat/room-ws.adapter';
import { BODY_LIMIT_BYTES, BodyValidationPipe } from './common/body-validation.pipe';
import { HttpExceptionFilter } from './common/http-exception.filter';
import { jsonParseErrors, readsJsonBody, unsupportedBodies } from './common/json-body';
import { httpLogging, PINO_LOGGER } from './common/logging';
import { apiCacheControl, securityHeadersMiddleware } from './common/security-headers';
import { type AppConfig } from './config/app-config';
import { PlainRoutes } from './common/plain-route';
import { CredentialsRoute } from './rooms/credentials.route';
import { undecodableRoomIds } from './rooms/room-id.pipe';
import { TicketRoute } from './rooms/ticket.route';
import { serveWeb } from './web/serve-web';

export interface ConfigureOptions {
  /**
   * Whether `POST /api/room/:room_id` is answered ahead of Express (`CredentialsRoute`); off, Nest's
   * controller answers it as it does every other route (tests compare the two).
   */
  plainCredentialsRoute?: boolean;
  /** The same for `POST /api/room/:room_id/ticket` (`TicketRoute`). */
  plainTicketRoute?: boolean;
}

/** Everything about the application that is not a module: shared by `main.ts` and the e2e tests. */
export function configureApp(
  app: NestExpressApplication,
  config: AppConfig,
  { plainCredentialsRoute = true, plainTicketRoute = true }: ConfigureOptions = {},
): void {
  app.useLogger(app.get(Logger));
  app
    .get(PlainRoutes)
    .mount(app, [
      ...(plainCredentialsRoute ? [app.get(CredentialsRoute)] : []),
      ...(plainTicketRoute ? [app.get(TicketRoute)] : []),
    ]);
  app.use(httpLogging(app.get<PinoInstance>(PINO_LOGGER)));
  app.disable('x-powered-by');
  app.use(...securityHeadersMiddleware(), apiCacheControl());
  app.use(undecodableRoomIds());
  app.useBodyParser('json', { limit: BODY_LIMIT_BYTES, type: readsJsonBody });
  app.use(jsonParseErrors(), unsupportedBodies());
  app.setGlobalPrefix(API_PREFIX.slice(1));
  app.useGlobalPipes(new BodyValidationPipe());
  app.useGlobalFilters(new HttpExceptionFilter());
  app.useWebSocketAdapter(new RoomWsAdapter(app));
  if (config.webDist !== null) serveWeb(app, config.webDist);
}
