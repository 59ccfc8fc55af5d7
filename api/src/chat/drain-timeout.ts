/**
 * How long a draining replica (SIGTERM) waits for the sockets it closed with 1012 to go before its
 * HTTP server and Redis connections close. A peer that never answers its close frame is dropped
 * after the close handshake timeout (`CLOSE_HANDSHAKE_TIMEOUT_MS`, protocol/src/limits.ts), so a
 * drain ends within about both; infra/kubernetes sizes the pods' grace period from them.
 */
export const DRAIN_TIMEOUT_MS = 3000;
