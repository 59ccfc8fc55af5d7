/**
 * The api's public entry for tools outside the server (`@taco/api/tools`): what the benchmark
 * measures of it in isolation, the Redis chat bus built as a replica builds it. Everything else
 * in `src/` is the server's own.
 */
export { RedisChatBus } from './bus/redis/redis-chat-bus';
export { RedisConnections } from './bus/redis/redis-connections';
