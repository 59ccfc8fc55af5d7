import { type Cluster, type Redis } from 'ioredis';

/**
 * Lets `ms` pass for `keys` as Redis's clock would: each key's time to live is shortened by `ms`,
 * and a key whose time is up is gone. A key kept for ever stays, as time would leave it.
 */
export async function elapseKeys(
  plain: Redis | Cluster,
  keys: readonly string[],
  ms: number,
): Promise<void> {
  for (const key of keys) {
    const left = await plain.pttl(key);
    if (left < 0) continue; // gone (-2), or kept for ever (-1)
    if (left <= ms) await plain.del(key);
    else await plain.pexpire(key, left - ms);
  }
}
