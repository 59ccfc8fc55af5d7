import { RedisChatBus } from '../../src/bus/redis/redis-chat-bus';
import { RedisPresenceStore } from '../../src/bus/redis/redis-presence.store';
import { ReplicaLease } from '../../src/bus/redis/replica-lease';
import { RedisRoomSettingsStore } from '../../src/bus/redis/redis-room-settings.store';
import { describeRoomSettingsContract } from './room-settings.contract';
import { type Cluster, type Redis } from 'ioredis';
import { RedisConnectionLimiter } from '../../src/bus/redis/redis-connection-limiter';
import { type RedisConnections } from '../../src/bus/redis/redis-connections';
import { RedisIpRateLimiter } from '../../src/bus/redis/redis-ip-rate-limiter';
import { SHARED_KEYS } from '../../src/bus/redis/redis-keys';
import { RedisTicketStore } from '../../src/bus/redis/redis-ticket.store';
import { RedisTokenSecretStore } from '../../src/bus/redis/redis-token-secret.store';
import { elapseKeys } from '../support/redis-clock';
import { describeConnectionLimiterContract } from './connection-limiter.contract';
import { describeIpRateLimiterContract } from './ip-rate-limiter.contract';
import { describePresenceLeaseContract, LEASE_MS, SOCKET_CAP } from './presence-lease.contract';
import { describeTicketStoreContract } from './ticket-store.contract';
import { describeTokenSecretStoreContract } from './token-secret-store.contract';

/** Where a ticket the store could not keep would be logged: nowhere, in these tests. */
const quiet = { warn: () => undefined };

/**
 * The contracts of the ports the Redis driver shares between replicas (room settings, presence
 * leases, tickets, per-IP limits, the token secret), each run with two replicas: `connect` gives a replica's connections, `plain` a
 * client of the same Redis for the tests' own reads and writes.
 */
export function describeSharedPortContracts(
  driver: string,
  connect: (replica: string) => Promise<RedisConnections>,
  plain: () => Redis | Cluster,
): void {
  /** Two replicas' connections, and how to close them both. */
  async function replicas() {
    const [one, two] = await Promise.all([connect('one'), connect('two')]);
    const close = async () => {
      await one.close();
      await two.close();
    };
    return { one, two, close };
  }

  describeRoomSettingsContract(driver, async () => {
    const { one, two, close } = await replicas();
    return {
      store: new RedisRoomSettingsStore(one, 60, () => Promise.resolve()),
      peer: new RedisRoomSettingsStore(two, 60, () => Promise.resolve()),
      presence: new RedisPresenceStore(one, new ReplicaLease(one, 20_000)),
      bus: new RedisChatBus(one, { historyMax: 5, roomTtlSeconds: 60 }),
      // Redis keeps its own time: removals lapse as it passes.
      elapse: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
      dispose: close,
    };
  });

  describePresenceLeaseContract(driver, async () => {
    const { one, two, close } = await replicas();
    const [oneLease, twoLease] = [new ReplicaLease(one, LEASE_MS), new ReplicaLease(two, LEASE_MS)];
    return {
      one: new RedisPresenceStore(one, oneLease),
      two: new RedisPresenceStore(two, twoLease),
      oneSockets: new RedisConnectionLimiter(one, oneLease, SOCKET_CAP),
      twoSockets: new RedisConnectionLimiter(two, twoLease, SOCKET_CAP),
      plain: plain(),
      dispose: close,
    };
  });

  describeTicketStoreContract(driver, async () => {
    const { one, two, close } = await replicas();
    return {
      store: new RedisTicketStore(one, quiet),
      peer: new RedisTicketStore(two, quiet),
      elapse: (ms, tickets) => elapseKeys(plain(), tickets.map(SHARED_KEYS.ticket), ms),
      dispose: close,
    };
  });

  describeConnectionLimiterContract(driver, async (cap) => {
    const { one, two, close } = await replicas();
    return {
      limiter: new RedisConnectionLimiter(one, new ReplicaLease(one, 20_000), cap),
      peer: new RedisConnectionLimiter(two, new ReplicaLease(two, 20_000), cap),
      dispose: close,
    };
  });

  let budgets = 0;
  describeIpRateLimiterContract(driver, async (perMinute) => {
    const { one, two, close } = await replicas();
    const budget = `contract-${++budgets}`;
    return {
      limiter: new RedisIpRateLimiter(one, budget, perMinute),
      peer: new RedisIpRateLimiter(two, budget, perMinute),
      // rate-limiter-flexible keeps an address's count at `<prefix>:<address>`.
      elapse: (ms, ips) =>
        elapseKeys(
          plain(),
          ips.map((ip) => `${SHARED_KEYS.rateLimitPrefix(budget)}:${ip}`),
          ms,
        ),
      dispose: close,
    };
  });

  describeTokenSecretStoreContract(driver, async () => {
    await plain().del(SHARED_KEYS.jwtSecret);
    const { one, two, close } = await replicas();
    return {
      store: new RedisTokenSecretStore(one),
      peer: new RedisTokenSecretStore(two),
      dispose: close,
    };
  });
}
