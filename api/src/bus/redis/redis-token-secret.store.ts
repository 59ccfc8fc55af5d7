import { TokenSecretStore } from '../token-secret-store.port';
import { type RedisConnections } from './redis-connections';
import { SHARED_KEYS } from './redis-keys';

/** In Redis, shared by every replica: one key that never expires. */
export class RedisTokenSecretStore extends TokenSecretStore {
  readonly shared = true;

  constructor(private readonly redis: RedisConnections) {
    super();
  }

  /** `SET key value NX GET` (Redis ≥ 7.0): stores and reads in one atomic step. */
  async agree(candidate: string): Promise<string> {
    if (!this.redis.isConnected) throw new Error('Redis is not connected');
    const previous = await this.redis.command.set(SHARED_KEYS.jwtSecret, candidate, 'NX', 'GET');
    return previous ?? candidate;
  }
}
