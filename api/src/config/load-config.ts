import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import {
  CLOSE_HANDSHAKE_TIMEOUT_MS,
  DISAPPEAR_LONGER_CHOICES,
  DISAPPEAR_SHORTEST_DEFAULT,
  HISTORY_MAX_DEFAULT,
  PING_INTERVAL_MS,
  SEND_BACKLOG_GRACE_MS,
  PRESENCE_TTL_MS,
  RATE_LIMITS,
} from '@taco/protocol';
import { validateSync } from 'class-validator';
import { AppConfig, type LogLevel } from './app-config';
import { parseDuration } from './duration';
import { EnvironmentVariables, LOG_LEVELS, splitList } from './env.schema';

/** A configuration that must stop the process, with every problem named. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const NUMERIC_KEYS = new Set<string>([
  'PORT',
  'HISTORY_MAX',
  'REDIS_WAIT_REPLICAS',
  'REDIS_WAIT_TIMEOUT_MS',
  'CREDENTIALS_PER_MINUTE',
  'CONNECTIONS_PER_IP',
  'MESSAGE_BURST',
  'MESSAGES_PER_SECOND',
  'TYPING_PER_SECOND',
  'HISTORY_REQUESTS_PER_10S',
]);

/**
 * How long a message waits for `WAIT` to confirm Redis replicas hold it (protocol/README.md
 * §8.6, §9).
 */
export const REDIS_WAIT_TIMEOUT_MS_DEFAULT = 2000;

/**
 * How often a replica probes the Redis subscription of each room that was quiet that long: a room
 * whose subscription is gone gets it back, and its missed messages, within about twice this.
 */
const SUBSCRIPTION_CHECK_MS = 5000;

/** The shortest `JWT_SECRET` accepted: HS256 wants a key at least as long as its hash. */
export const MIN_SECRET_BYTES = 32;
const DISABLED = new Set(['off', 'false', 'none', '0']);

/** Where `npm run build` puts the web client, seen from api/dist/config or api/src/config. */
export const DEFAULT_WEB_DIST = resolve(__dirname, '..', '..', '..', 'web', 'dist');

function readEnvironment(env: NodeJS.ProcessEnv): EnvironmentVariables {
  const values: Record<string, string | number> = {};
  for (const [key, raw] of Object.entries(env)) {
    if (raw === undefined || raw.trim() === '') continue;
    const text = raw.trim();
    values[key] = NUMERIC_KEYS.has(key) && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  }
  return Object.assign(new EnvironmentVariables(), values);
}

/** `LOG_LEVEL` accepts Nest's names too: `log` is pino's `info`, `verbose` its `trace`. */
const PINO_LEVEL: Record<(typeof LOG_LEVELS)[number], LogLevel> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  info: 'info',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

function webDist(value: string | undefined, problems: string[]): string | null {
  if (value === undefined) {
    return existsSync(join(DEFAULT_WEB_DIST, 'index.html')) ? DEFAULT_WEB_DIST : null;
  }
  if (DISABLED.has(value.toLowerCase())) return null;
  const dir = resolve(value);
  if (!existsSync(join(dir, 'index.html'))) {
    problems.push(`WEB_DIST must be a built web client folder with an index.html (got "${value}")`);
  }
  return dir;
}

/** `host:port,host:port,…`: every entry a host name or IPv4 address and a port (1–65535). */
function parseClusterNodes(text: string, problems: string[]): { host: string; port: number }[] {
  const nodes: { host: string; port: number }[] = [];
  for (const entry of text.split(',').map((part) => part.trim())) {
    const match = /^([A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || port < 1 || port > 65535) {
      problems.push(
        `REDIS_CLUSTER_NODES must be comma-separated host:port seeds of a Redis Cluster (got "${entry}")`,
      );
      return [];
    }
    nodes.push({ host: match[1], port });
  }
  return nodes;
}

/** `DISAPPEAR_SHORTEST` in whole seconds: from a minute (for tests) to the default hour. */
function disappearShortest(text: string | undefined, problems: string[]): number {
  if (text === undefined) return DISAPPEAR_SHORTEST_DEFAULT;
  const ms = parseDuration(text);
  if (ms === null) return DISAPPEAR_SHORTEST_DEFAULT; // the schema named the problem
  if (ms < 60_000 || ms > DISAPPEAR_SHORTEST_DEFAULT * 1000 || ms % 1000 !== 0) {
    problems.push(
      `DISAPPEAR_SHORTEST must be a whole number of seconds from 1m to 1h (got "${text}")`,
    );
  }
  return Math.round(ms / 1000);
}

/**
 * Reads and validates the environment. Throws `ConfigError` naming every problem. Logs are human
 * lines when `stdoutIsTerminal`, JSON lines otherwise.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  stdoutIsTerminal = process.stdout.isTTY === true,
): AppConfig {
  const vars = readEnvironment(env);
  const problems = validateSync(vars, { stopAtFirstError: true }).flatMap((error) =>
    Object.values(error.constraints ?? {}),
  );

  const redisUrl = vars.REDIS_URL;
  const redisClusterNodes =
    vars.REDIS_CLUSTER_NODES === undefined
      ? undefined
      : parseClusterNodes(vars.REDIS_CLUSTER_NODES, problems);
  if (redisUrl !== undefined && redisClusterNodes !== undefined) {
    problems.push('Set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both');
  }
  const redisWaitReplicas = vars.REDIS_WAIT_REPLICAS ?? 0;
  if (redisWaitReplicas > 0 && redisUrl === undefined && redisClusterNodes === undefined) {
    problems.push(
      'REDIS_WAIT_REPLICAS needs REDIS_URL or REDIS_CLUSTER_NODES (Redis replicas to wait for)',
    );
  }
  const jwtSecret = vars.JWT_SECRET;
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < MIN_SECRET_BYTES) {
    problems.push(`JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes long`);
  }
  const dist = webDist(vars.WEB_DIST, problems);
  const shortest = disappearShortest(vars.DISAPPEAR_SHORTEST, problems);

  if (problems.length > 0) throw new ConfigError(problems);

  const seconds = (text: string | undefined, fallback: string) =>
    Math.ceil((parseDuration(text ?? fallback) ?? 0) / 1000);

  return new AppConfig({
    port: vars.PORT ?? 3000,
    host: vars.HOST ?? '0.0.0.0',
    redisUrl,
    redisClusterNodes,
    redisWaitReplicas,
    redisWaitTimeoutMs: vars.REDIS_WAIT_TIMEOUT_MS ?? REDIS_WAIT_TIMEOUT_MS_DEFAULT,
    jwtSecret,
    tokenTtlSeconds: seconds(vars.TOKEN_TTL, '24h'),
    historyMax: vars.HISTORY_MAX ?? HISTORY_MAX_DEFAULT,
    roomTtlSeconds: seconds(vars.ROOM_TTL, '7d'),
    allowedOrigins: splitList(vars.ALLOWED_ORIGINS ?? ''),
    trustProxy: splitList(vars.TRUST_PROXY ?? ''),
    webDist: dist,
    logLevel: PINO_LEVEL[vars.LOG_LEVEL ?? 'info'],
    logPretty: stdoutIsTerminal,
    replicaId: vars.REPLICA_ID ?? `${hostname()}-${process.pid}`,
    credentialsPerMinute: vars.CREDENTIALS_PER_MINUTE ?? RATE_LIMITS.credentialsPerMinute,
    connectionsPerIp: vars.CONNECTIONS_PER_IP ?? RATE_LIMITS.connectionsPerIp,
    messageBurst: vars.MESSAGE_BURST ?? RATE_LIMITS.messageBurst,
    messagesPerSecond: vars.MESSAGES_PER_SECOND ?? RATE_LIMITS.messagesPerSecond,
    typingPerSecond: vars.TYPING_PER_SECOND ?? RATE_LIMITS.typingPerSecond,
    historyRequests: vars.HISTORY_REQUESTS_PER_10S ?? RATE_LIMITS.historyRequests,
    historyWindowMs: RATE_LIMITS.historyWindowMs,
    strikesBeforeClose: RATE_LIMITS.strikesBeforeClose,
    strikesForgivenPerSecond: RATE_LIMITS.strikesForgivenPerSecond,
    pingIntervalMs: PING_INTERVAL_MS,
    closeTimeoutMs: CLOSE_HANDSHAKE_TIMEOUT_MS,
    backlogGraceMs: SEND_BACKLOG_GRACE_MS,
    // Refresh six times per TTL and expire after two thirds of it, so a dead replica's
    // participants are reported gone (expiry + one reap) within the TTL.
    presenceRefreshMs: PRESENCE_TTL_MS / 6,
    presenceExpiryMs: (PRESENCE_TTL_MS * 2) / 3,
    subscriptionCheckMs: SUBSCRIPTION_CHECK_MS,
    disappearChoices: [0, shortest, ...DISAPPEAR_LONGER_CHOICES],
  });
}
