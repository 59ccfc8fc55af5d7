import { createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { type TokenSecretStore } from '../bus/token-secret-store.port';

/** Where the secret came from: the operator, this boot, or the replicas' agreement in Redis. */
export type TokenSecretSource = 'configured' | 'boot' | 'shared';

/** How long a replica waits at boot for Redis to agree on a secret before it gives up. */
export const SECRET_AGREEMENT_TIMEOUT_MS = 60_000;
/** How often a replica checks that the agreed secret is still the one in Redis. */
export const SECRET_CHECK_INTERVAL_MS = 10_000;
const RETRY_MS = 500;
const WAIT_LOG_INTERVAL_MS = 10_000;

/** A fresh random secret: 48 bytes, well over HS256's 32. */
export function generateSecret(): string {
  return randomBytes(48).toString('base64url');
}

/**
 * The key room tokens are signed and checked with, held ready (a `KeyObject`: given a string,
 * jsonwebtoken first tries, and fails, to parse it as a PEM key on every sign and verify).
 *
 * With Redis and no `JWT_SECRET`, the replicas agree on one secret: the first to boot stores a
 * random one (`SET … NX`), the others read it. Each replica checks every few seconds that Redis
 * still holds it: if Redis lost it, the replica stores its own again; if another replica's secret
 * is there, all of them follow the stored one, so they always converge on one secret. The secret
 * never reaches a log.
 */
export class TokenSecret {
  private current: KeyObject;
  private text: string;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    secret: string,
    readonly source: TokenSecretSource,
  ) {
    this.text = secret;
    this.current = createSecretKey(Buffer.from(secret));
  }

  get key(): KeyObject {
    return this.current;
  }

  /** The operator's secret, or one made for this boot (embedded mode). */
  static local(configured: string | undefined): TokenSecret {
    return configured === undefined
      ? new TokenSecret(generateSecret(), 'boot')
      : new TokenSecret(configured, 'configured');
  }

  /**
   * Agrees with the other replicas through Redis, waiting for Redis (bounded) at boot. Rejects
   * when Redis cannot be reached within `timeoutMs`: a replica cannot sign or check a token
   * without the shared secret.
   */
  static async shared(
    store: TokenSecretStore,
    timeoutMs = SECRET_AGREEMENT_TIMEOUT_MS,
  ): Promise<TokenSecret> {
    const logger = new Logger('TokenSecret');
    const candidate = generateSecret();
    const deadline = Date.now() + timeoutMs;
    let lastLog = Date.now();
    for (;;) {
      try {
        const stored = await store.agree(candidate);
        logger.log(
          stored === candidate
            ? 'No JWT_SECRET set: generated the token secret the replicas share (kept in Redis)'
            : 'No JWT_SECRET set: using the token secret the replicas share (kept in Redis)',
        );
        return new TokenSecret(stored, 'shared');
      } catch (error) {
        if (Date.now() >= deadline) {
          throw new Error(
            `No JWT_SECRET set and Redis could not be reached within ${timeoutMs / 1000} s to agree on one (${String(error)})`,
          );
        }
        if (Date.now() - lastLog >= WAIT_LOG_INTERVAL_MS) {
          lastLog = Date.now();
          logger.warn('Waiting for Redis to agree on the shared token secret');
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  /** Checks now and then that Redis still holds this replica's secret (shared secrets only). */
  keepAgreed(store: TokenSecretStore, intervalMs = SECRET_CHECK_INTERVAL_MS): void {
    if (this.source !== 'shared' || this.timer !== undefined) return;
    const logger = new Logger('TokenSecret');
    this.timer = setInterval(() => {
      store.agree(this.text).then(
        (stored) => {
          if (stored === this.text) return;
          this.text = stored;
          this.current = createSecretKey(Buffer.from(stored));
          logger.warn(
            'The shared token secret in Redis changed: following it (earlier tokens now ask for new credentials)',
          );
        },
        () => undefined, // Redis is away: readiness and the command path report that already.
      );
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
