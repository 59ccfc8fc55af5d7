import {
  Global,
  Inject,
  Logger,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { ChatBus } from './chat-bus.port';
import { MemoryChatBus } from './memory/memory-chat-bus';
import { MemoryPresenceStore } from './memory/memory-presence.store';
import { PresenceStore } from './presence.port';
import { RedisChatBus } from './redis/redis-chat-bus';
import { RedisConnections } from './redis/redis-connections';
import { RedisPresenceStore } from './redis/redis-presence.store';

const SWEEP_INTERVAL_MS = 60_000;
/** Where the Redis driver's notable events are logged (unconfirmed messages, lost subscriptions). */
const busLog = new Logger('RedisChatBus');
const REDIS_BOOT_WAIT_MS = 5000;

/**
 * Chooses the storage and fan-out driver from configuration: Redis with `REDIS_URL` or
 * `REDIS_CLUSTER_NODES` (a Redis Cluster), else memory.
 */
@Global()
@Module({
  providers: [
    {
      provide: RedisConnections,
      useFactory: (config: AppConfig) => {
        if (config.redisClusterNodes !== undefined) {
          return new RedisConnections({ clusterNodes: config.redisClusterNodes }, config.replicaId);
        }
        return config.redisUrl === undefined
          ? null
          : new RedisConnections({ url: config.redisUrl }, config.replicaId);
      },
      inject: [AppConfig],
    },
    {
      provide: ChatBus,
      useFactory: (
        config: AppConfig,
        clock: Clock,
        metrics: MetricsService,
        redis: RedisConnections | null,
      ) =>
        redis
          ? new RedisChatBus(redis, {
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
            })
          : new MemoryChatBus({
              historyMax: config.historyMax,
              roomTtlMs: config.roomTtlSeconds * 1000,
              now: () => clock.now(),
            }),
      inject: [AppConfig, Clock, MetricsService, RedisConnections],
    },
    {
      provide: PresenceStore,
      useFactory: (config: AppConfig, redis: RedisConnections | null, bus: ChatBus) =>
        redis
          ? new RedisPresenceStore(redis, config.presenceExpiryMs)
          : new MemoryPresenceStore(bus),
      inject: [AppConfig, RedisConnections, ChatBus],
    },
  ],
  exports: [ChatBus, PresenceStore, RedisConnections],
})
export class BusModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(BusModule.name);
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    @Inject(ChatBus) private readonly bus: ChatBus,
    @Inject(RedisConnections) private readonly redis: RedisConnections | null,
  ) {}

  async onModuleInit(): Promise<void> {
    const bus = this.bus;
    if (bus instanceof MemoryChatBus) {
      this.logger.log('Embedded mode: rooms, history and presence live in this process');
      this.sweeper = setInterval(() => bus.sweep(), SWEEP_INTERVAL_MS).unref();
      return;
    }
    if (this.redis && !(await this.redis.waitUntilReady(REDIS_BOOT_WAIT_MS))) {
      this.logger.warn('Redis is not reachable yet: not ready until it is');
    }
  }

  /** Runs after the gateway has drained, so the Redis connections are the last thing to close. */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    if (this.bus instanceof RedisChatBus) this.bus.stop();
    await this.redis?.close();
  }
}
