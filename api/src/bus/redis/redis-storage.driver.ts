import { type WarnLogger } from '../../common/storage-unavailable';
import { StorageDriver, type StorageLog } from '../storage-driver.port';
import { RedisChatBus, type RedisChatBusOptions } from './redis-chat-bus';
import { RedisConnectionLimiter } from './redis-connection-limiter';
import { RedisConnections } from './redis-connections';
import { RedisIpRateLimiter } from './redis-ip-rate-limiter';
import { RedisPresenceStore } from './redis-presence.store';
import { RedisDisappearSweeper } from './redis-disappear-sweeper';
import { RedisRoomSettingsStore } from './redis-room-settings.store';
import { RedisTicketStore } from './redis-ticket.store';
import { RedisTokenSecretStore } from './redis-token-secret.store';
import { ReplicaLease } from './replica-lease';

export interface RedisStorageOptions {
  bus: RedisChatBusOptions;
  presenceExpiryMs: number;
  connectionsPerIp: number;
  credentialsPerMinute: number;
  lookupsPerMinute: number;
  /** Where a ticket that could not be stored is logged. */
  ticketLog: WarnLogger;
  /** Where a sweep of disappearing messages that failed is logged. */
  sweepLog: WarnLogger;
}

/** How long the boot waits for Redis before it goes on, not ready until Redis answers. */
const REDIS_BOOT_WAIT_MS = 5000;

/**
 * The scaled driver: every port on one set of Redis connections (`RedisConnections`), shared by
 * the replicas, on a standalone Redis or a Redis Cluster.
 */
export class RedisStorageDriver extends StorageDriver {
  readonly bus: RedisChatBus;
  readonly presence: RedisPresenceStore;
  readonly rooms: RedisRoomSettingsStore;
  readonly tickets: RedisTicketStore;
  readonly connections: RedisConnectionLimiter;
  readonly credentialsBudget: RedisIpRateLimiter;
  readonly lookupsBudget: RedisIpRateLimiter;
  readonly tokenSecrets: RedisTokenSecretStore;
  private readonly sweeper: RedisDisappearSweeper;

  /** `redis`: the connections every port uses; closed by `stop`. */
  constructor(
    readonly redis: RedisConnections,
    options: RedisStorageOptions,
  ) {
    super();
    this.bus = new RedisChatBus(redis, options.bus);
    // Presence members and per-address socket counts are held under the replica's one lease.
    const lease = new ReplicaLease(redis, options.presenceExpiryMs);
    this.presence = new RedisPresenceStore(redis, lease);
    this.sweeper = new RedisDisappearSweeper(redis, (error) =>
      options.sweepLog.warn(`Sweeping disappearing messages failed: ${String(error)}`),
    );
    this.rooms = new RedisRoomSettingsStore(redis, options.bus.roomTtlSeconds, (room) =>
      this.sweeper.register(room),
    );
    this.tickets = new RedisTicketStore(redis, options.ticketLog);
    this.connections = new RedisConnectionLimiter(redis, lease, options.connectionsPerIp);
    this.credentialsBudget = new RedisIpRateLimiter(
      redis,
      'credentials',
      options.credentialsPerMinute,
    );
    this.lookupsBudget = new RedisIpRateLimiter(redis, 'lookups', options.lookupsPerMinute);
    this.tokenSecrets = new RedisTokenSecretStore(redis);
  }

  async start(log: StorageLog): Promise<void> {
    if (!(await this.redis.waitUntilReady(REDIS_BOOT_WAIT_MS))) {
      log.warn('Redis is not reachable yet: not ready until it is');
    }
    this.sweeper.start();
  }

  /** The connections close last, once the gateway has drained. */
  async stop(): Promise<void> {
    this.bus.stop();
    await this.sweeper.stop();
    await this.redis.close();
  }
}
