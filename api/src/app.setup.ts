import { type NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { type Logger as PinoInstance } from 'pino';
import { API_PREFIX } from '@taco/protocol';
import { RoomWsAdapter } from './chat/room-ws.adapter';
import { BodyValidationPipe } from './common/body-validation.pipe';
import { HttpExceptionFilter } from './common/http-exception.filter';
import { jsonBodyParser, jsonParseErrors, unsupportedBodies } from './common/json-body';
import { httpLogging, PINO_LOGGER } from './common/logging';
import { apiCacheControl, securityHeadersMiddleware } from './common/security-headers';
import { type AppConfig } from './config/app-config';
import { PlainRoutes } from './common/plain-route';
import { CredentialsRoute } from './rooms/credentials.route';
import { undecodableRoomIds } from './rooms/room-id.pipe';
import { TicketRoute } from './rooms/ticket.route';
import { serveWeb } from './web/serve-web';

/** Everything about the application that is not a module: shared by `main.ts` and the e2e tests. */
export function configureApp(app: NestExpressApplication, config: AppConfig): void {
  app.useLogger(app.get(Logger));
  app.get(PlainRoutes).mount(app, [app.get(CredentialsRoute), app.get(TicketRoute)]);
  app.use(httpLogging(app.get<PinoInstance>(PINO_LOGGER)));
  app.disable('x-powered-by');
  app.use(...securityHeadersMiddleware(), apiCacheControl());
  app.use(undecodableRoomIds());
  app.use(jsonBodyParser(), jsonParseErrors(), unsupportedBodies());
  app.setGlobalPrefix(API_PREFIX.slice(1));
  app.useGlobalPipes(new BodyValidationPipe());
  app.useGlobalFilters(new HttpExceptionFilter());
  app.useWebSocketAdapter(new RoomWsAdapter(app));
  if (config.webDist !== null) serveWeb(app, config.webDist);
}
