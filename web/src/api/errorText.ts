import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SerializedError } from '@reduxjs/toolkit';
import { type ApiErrorBody, RATE_LIMITED_MESSAGE } from '@taco/protocol';

/** Shown when the server cannot be reached at all. */
export const NETWORK_ERROR_MESSAGE = 'We could not reach the server. Please check your connection.';

function isApiErrorBody(value: unknown): value is ApiErrorBody {
  return (
    typeof value === 'object' &&
    value !== null &&
    'message' in value &&
    (typeof value.message === 'string' || Array.isArray(value.message))
  );
}

/** The HTTP status of a failed call, or `null` when there was no HTTP answer. */
export function errorStatus(
  error: FetchBaseQueryError | SerializedError | undefined,
): number | null {
  if (error && 'status' in error && typeof error.status === 'number') return error.status;
  return null;
}

/** The human reason a call failed, as precise as the answer allows. */
export function errorReason(error: FetchBaseQueryError | SerializedError | undefined): string {
  if (!error) return NETWORK_ERROR_MESSAGE;
  if ('status' in error) {
    if (error.status === 429) return RATE_LIMITED_MESSAGE;
    if (typeof error.status === 'number' && isApiErrorBody(error.data)) {
      const { message } = error.data;
      return Array.isArray(message) ? message.join('. ') : message;
    }
    if (typeof error.status === 'number') return `The server answered ${error.status}.`;
    return NETWORK_ERROR_MESSAGE;
  }
  return error.message ?? NETWORK_ERROR_MESSAGE;
}
