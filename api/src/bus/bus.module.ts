import {
  Global,
  Inject,
  Logger,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { ChatBus } from './chat-bus.port';
import { ConnectionLimiter } from './connection-limiter.port';
import {
  CredentialsRateLimiter,
  LOOKUPS_PER_CREDENTIAL,
  LookupRateLimiter,
} from './ip-rate-limiter.port';
import { MemoryStorageDriver } from './memory/memory-storage.driver';
import { PresenceStore } from './presence.port';
import { RoomSettingsStore } from './room-settings.port';
import { RedisConnections, type RedisTarget } from './redis/redis-connections';
import { RedisStorageDriver } from './redis/redis-storage.driver';
import { StorageDriver } from './storage-driver.port';
import { TicketStore } from './ticket-store.port';
import { TokenSecretStore } from './token-secret-store.port';

/** Where the Redis driver's notable events are logged (unconfirmed messages, lost subscriptions). */
const busLog = new Logger('RedisChatBus');

function redisDriver(config: AppConfig, metrics: MetricsService, target: RedisTarget) {
  return new RedisStorageDriver(new RedisConnections(target, config.replicaId), {
    bus: {
      historyMax: config.historyMax,
      roomTtlSeconds: config.roomTtlSeconds,
      waitReplicas: config.redisWaitReplicas,
      waitTimeoutMs: config.redisWaitTimeoutMs,
      onRoundTrip: (command, seconds) => metrics.redisSeconds.observe({ command }, seconds),
      subscriptionCheckMs: config.subscriptionCheckMs,
      onResubscribed: (room, cause) => {
        metrics.resubscribes.inc({ cause });
        if (cause === 'lost') {
          busLog.warn(`The subscription to room ${room} was gone: subscribed again`);
        }
      },
      onUnconfirmed: (why) => {
        metrics.unconfirmedMessages.inc();
        busLog.warn(why);
      },
    },
    presenceExpiryMs: config.presenceExpiryMs,
    connectionsPerIp: config.connectionsPerIp,
    credentialsPerMinute: config.credentialsPerMinute,
    lookupsPerMinute: config.credentialsPerMinute * LOOKUPS_PER_CREDENTIAL,
    ticketLog: new Logger('RedisTicketStore'),
    sweepLog: new Logger('DisappearingMessages'),
  });
}

/**
 * The one place the storage driver is chosen, from configuration: Redis with `REDIS_URL` or
 * `REDIS_CLUSTER_NODES` (a Redis Cluster), else memory.
 */
export function createStorageDriver(
  config: AppConfig,
  clock: Clock,
  metrics: MetricsService,
): StorageDriver {
  if (config.redisClusterNodes !== undefined) {
    return redisDriver(config, metrics, { clusterNodes: config.redisClusterNodes });
  }
  if (config.redisUrl !== undefined) return redisDriver(config, metrics, { url: config.redisUrl });
  return new MemoryStorageDriver({
    historyMax: config.historyMax,
    roomTtlMs: config.roomTtlSeconds * 1000,
    connectionsPerIp: config.connectionsPerIp,
    credentialsPerMinute: config.credentialsPerMinute,
    lookupsPerMinute: config.credentialsPerMinute * LOOKUPS_PER_CREDENTIAL,
    now: () => clock.now(),
  });
}

/** Provides `token` as the chosen driver's port. */
const port = (token: abstract new () => unknown, of: (driver: StorageDriver) => unknown) =>
  ({ provide: token, useFactory: of, inject: [StorageDriver] }) satisfies Provider;

/** Every storage port, from the one driver chosen by configuration. */
@Global()
@Module({
  providers: [
    {
      provide: StorageDriver,
      useFactory: createStorageDriver,
      inject: [AppConfig, Clock, MetricsService],
    },
    port(ChatBus, (driver) => driver.bus),
    port(PresenceStore, (driver) => driver.presence),
    port(RoomSettingsStore, (driver) => driver.rooms),
    port(TicketStore, (driver) => driver.tickets),
    port(ConnectionLimiter, (driver) => driver.connections),
    port(CredentialsRateLimiter, (driver) => driver.credentialsBudget),
    port(LookupRateLimiter, (driver) => driver.lookupsBudget),
    port(TokenSecretStore, (driver) => driver.tokenSecrets),
  ],
  exports: [
    ChatBus,
    PresenceStore,
    RoomSettingsStore,
    TicketStore,
    ConnectionLimiter,
    CredentialsRateLimiter,
    LookupRateLimiter,
    TokenSecretStore,
  ],
})
export class BusModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(BusModule.name);

  constructor(@Inject(StorageDriver) private readonly driver: StorageDriver) {}

  onModuleInit(): Promise<void> {
    return this.driver.start(this.logger);
  }

  /** Runs after the gateway has drained, so the storage connections are the last thing to close. */
  onApplicationShutdown(): Promise<void> {
    return this.driver.stop();
  }
}
