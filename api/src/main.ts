import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { type AddressInfo } from 'node:net';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { type AppConfig } from './config/app-config';
import { ConfigError, loadConfig } from './config/load-config';
import { TokenSecret } from './rooms/token-secret';

function readConfig(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

async function bootstrap(): Promise<void> {
  const config = readConfig();
  const logger = new Logger('TacoChat');
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    // Held until `configureApp` hands Nest the pino logger, so even boot lines are JSON.
    bufferLogs: true,
  });
  configureApp(app, config);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  process.on('unhandledRejection', (reason) =>
    logger.error(`Unhandled rejection: ${String(reason)}`),
  );

  await app.listen(config.port, config.host);
  const { port } = app.getHttpServer().address() as AddressInfo;
  if (app.get(TokenSecret).source === 'boot') {
    logger.log('No JWT_SECRET set: tokens are signed with a secret made for this run');
  }
  if (config.webDist === null) logger.log('Serving the API only (no built web client)');
  logger.log(`Taco Chat is listening on http://localhost:${port}`);
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(
    `Taco Chat could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
