import { type ChatBus } from './chat-bus.port';
import { type ConnectionLimiter } from './connection-limiter.port';
import { type IpRateLimiter } from './ip-rate-limiter.port';
import { type PresenceStore } from './presence.port';
import { type RoomSettingsStore } from './room-settings.port';
import { type TicketStore } from './ticket-store.port';
import { type TokenSecretStore } from './token-secret-store.port';

/** Where a driver says how its start went (the bus module's log). */
export interface StorageLog {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * One storage driver (in this process, or Redis shared by the replicas) and every port it
 * provides, chosen once from configuration (`BusModule`). Its lifecycle is its own: `start` at
 * boot, `stop` as the last thing at shutdown.
 */
export abstract class StorageDriver {
  abstract readonly bus: ChatBus;
  abstract readonly presence: PresenceStore;
  /** Rooms' settings records and removals (protocol/README.md §6.9–§6.11). */
  abstract readonly rooms: RoomSettingsStore;
  abstract readonly tickets: TicketStore;
  abstract readonly connections: ConnectionLimiter;
  /** The budget of credential and room-creation calls (`CredentialsRateLimiter`). */
  abstract readonly credentialsBudget: IpRateLimiter;
  /** The budget of ticket, room-name and room-info calls (`LookupRateLimiter`). */
  abstract readonly lookupsBudget: IpRateLimiter;
  abstract readonly tokenSecrets: TokenSecretStore;
  /** Starts background work; a shared driver waits (bounded) for its storage to answer. */
  abstract start(log: StorageLog): Promise<void>;
  /** Stops background work and closes what the driver opened: after the gateway has drained. */
  abstract stop(): Promise<void>;
}
