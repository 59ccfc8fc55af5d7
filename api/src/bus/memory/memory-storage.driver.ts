import { StorageDriver, type StorageLog } from '../storage-driver.port';
import { MemoryChatBus } from './memory-chat-bus';
import { MemoryConnectionLimiter } from './memory-connection-limiter';
import { MemoryIpRateLimiter } from './memory-ip-rate-limiter';
import { MemoryPresenceStore } from './memory-presence.store';
import { MemoryRoomSettingsStore } from './memory-room-settings.store';
import { MemoryTicketStore } from './memory-ticket.store';
import { MemoryTokenSecretStore } from './memory-token-secret.store';

export interface MemoryStorageOptions {
  historyMax: number;
  roomTtlMs: number;
  connectionsPerIp: number;
  credentialsPerMinute: number;
  lookupsPerMinute: number;
  now: () => number;
}

/** How often rooms idle past the room TTL are forgotten. */
const SWEEP_INTERVAL_MS = 60_000;
/** How often disappearing messages are deleted once expired (protocol/README.md §6.13). */
const DISAPPEAR_SWEEP_MS = 1000;

/** The embedded driver: rooms, history, presence, tickets and budgets live in this process. */
export class MemoryStorageDriver extends StorageDriver {
  readonly bus: MemoryChatBus;
  readonly presence: MemoryPresenceStore;
  readonly rooms: MemoryRoomSettingsStore;
  readonly tickets: MemoryTicketStore;
  readonly connections: MemoryConnectionLimiter;
  readonly credentialsBudget: MemoryIpRateLimiter;
  readonly lookupsBudget: MemoryIpRateLimiter;
  readonly tokenSecrets = new MemoryTokenSecretStore();
  private sweeper: NodeJS.Timeout | undefined;
  private disappearSweeper: NodeJS.Timeout | undefined;

  constructor(options: MemoryStorageOptions) {
    super();
    const { now } = options;
    this.bus = new MemoryChatBus({
      historyMax: options.historyMax,
      roomTtlMs: options.roomTtlMs,
      now,
      disappearAfter: (room) => this.rooms.disappearAfter(room),
    });
    this.presence = new MemoryPresenceStore(this.bus, (room, holder) =>
      this.rooms.removedNow(room, holder),
    );
    this.rooms = new MemoryRoomSettingsStore(this.bus, this.presence, options.roomTtlMs, now);
    this.tickets = new MemoryTicketStore(now);
    this.connections = new MemoryConnectionLimiter(options.connectionsPerIp);
    this.credentialsBudget = new MemoryIpRateLimiter(options.credentialsPerMinute, now);
    this.lookupsBudget = new MemoryIpRateLimiter(options.lookupsPerMinute, now);
  }

  start(log: StorageLog): Promise<void> {
    log.log('Embedded mode: rooms, history and presence live in this process');
    this.sweeper = setInterval(() => {
      this.bus.sweep();
      this.rooms.sweep();
    }, SWEEP_INTERVAL_MS).unref();
    this.disappearSweeper = setInterval(() => {
      for (const [room] of this.rooms.disappearing()) this.bus.dropExpired(room);
    }, DISAPPEAR_SWEEP_MS).unref();
    return Promise.resolve();
  }

  stop(): Promise<void> {
    clearInterval(this.sweeper);
    clearInterval(this.disappearSweeper);
    this.credentialsBudget.close();
    this.lookupsBudget.close();
    this.connections.close();
    return Promise.resolve();
  }
}
