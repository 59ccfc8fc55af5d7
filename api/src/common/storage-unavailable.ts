import { type Logger, ServiceUnavailableException } from '@nestjs/common';
import { STORAGE_UNAVAILABLE_MESSAGE } from '@taco/protocol';

/** Where a failed storage step is logged: a Nest `Logger`, named for whoever stores. */
export type WarnLogger = Pick<Logger, 'warn'>;

/**
 * Runs a call's storage step; when storage cannot be reached (Redis away), logs why and answers
 * the call 503 `Chat is briefly unavailable; please try again`, as every call that needs storage
 * does then, never a 500.
 */
export async function orUnavailable<T>(
  logger: WarnLogger,
  what: string,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    logger.warn(`${what} failed: ${String(error)}`);
    throw new ServiceUnavailableException(STORAGE_UNAVAILABLE_MESSAGE);
  }
}
