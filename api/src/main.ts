import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { type AddressInfo } from 'node:net';
import { type Logger as PinoLogger } from 'pino';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { bootLogger, createLogger } from './common/logging';
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

async function bootstrap(config: AppConfig, pino: PinoLogger): Promise<void> {
  const logger = new Logger('TacoChat');
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, pino), {
    bodyParser: false,
    // Nest logs through the same pino logger from the start, as it happens (JSON lines at
    // LOG_LEVEL), and a failed start rejects here instead of aborting the process.
    logger: bootLogger(pino),
    abortOnError: false,
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

const config = readConfig();
const pino = createLogger(config);
bootstrap(config, pino).catch((error: unknown) => {
  pino.fatal(
    { err: error },
    `Taco Chat could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  // The logger writes asynchronously, and an exit now could cut its last lines off: the process
  // ends by itself once they are out, or 3 s from now if something (a Redis client retrying, say)
  // would keep it alive.
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 3000).unref();
});
