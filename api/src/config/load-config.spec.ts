import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './load-config';

const SECRET = 'a-secret-of-at-least-thirty-two-bytes!';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({ WEB_DIST: 'off' });
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      redisUrl: undefined,
      tokenTtlSeconds: 24 * 3600,
      historyMax: 1000,
      roomTtlSeconds: 7 * 24 * 3600,
      allowedOrigins: [],
      trustProxy: [],
      webDist: null,
      credentialsPerMinute: 30,
      connectionsPerIp: 100,
      messageBurst: 10,
      messagesPerSecond: 2,
      typingPerSecond: 2,
      historyRequests: 5,
      pingIntervalMs: 25_000,
      closeTimeoutMs: 5000,
      backlogGraceMs: 5000,
      jwtSecret: undefined,
      redisWaitReplicas: 0,
      redisWaitTimeoutMs: 2000,
      disappearChoices: [0, 3600, 86_400, 604_800],
    });
    expect(config.logLevel).toBe('info');
  });

  it('reads the shortest disappearing-messages choice, from a minute to an hour', () => {
    expect(loadConfig({ WEB_DIST: 'off', DISAPPEAR_SHORTEST: '1m' }).disappearChoices).toEqual([
      0, 60, 86_400, 604_800,
    ]);
    expect(loadConfig({ WEB_DIST: 'off', DISAPPEAR_SHORTEST: '90s' }).disappearChoices[1]).toBe(90);
    for (const value of ['59s', '2h', '1500ms']) {
      expect(problemsOf({ WEB_DIST: 'off', DISAPPEAR_SHORTEST: value })).toEqual([
        `DISAPPEAR_SHORTEST must be a whole number of seconds from 1m to 1h (got "${value}")`,
      ]);
    }
    expect(problemsOf({ WEB_DIST: 'off', DISAPPEAR_SHORTEST: 'soon' })).toEqual([
      'DISAPPEAR_SHORTEST must be a duration such as 90s, 15m, 24h or 7d, at most 3650d (got "soon")',
    ]);
  });

  it('leaves the secret to the replicas when JWT_SECRET is unset or empty, also with Redis', () => {
    expect(loadConfig({ WEB_DIST: 'off', JWT_SECRET: '' }).jwtSecret).toBeUndefined();
    expect(
      loadConfig({ WEB_DIST: 'off', REDIS_URL: 'redis://localhost:6379' }).jwtSecret,
    ).toBeUndefined();
  });

  it('reads the seed nodes of a Redis Cluster', () => {
    const config = loadConfig({
      WEB_DIST: 'off',
      REDIS_CLUSTER_NODES: ' 127.0.0.1:7000, redis-2:7001 ',
    });
    expect(config.redisClusterNodes).toEqual([
      { host: '127.0.0.1', port: 7000 },
      { host: 'redis-2', port: 7001 },
    ]);
    expect(config.redisUrl).toBeUndefined();
  });

  it('reads how many Redis replicas a message waits for, and for how long', () => {
    const config = loadConfig({
      WEB_DIST: 'off',
      REDIS_URL: 'redis://redis:6379',
      REDIS_WAIT_REPLICAS: '1',
      REDIS_WAIT_TIMEOUT_MS: '5000',
    });
    expect(config).toMatchObject({ redisWaitReplicas: 1, redisWaitTimeoutMs: 5000 });
  });

  it('reads every documented variable', () => {
    const dist = mkdtempSync(join(tmpdir(), 'taco-dist-'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html>');
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      JWT_SECRET: SECRET,
      TOKEN_TTL: '90m',
      HISTORY_MAX: '50',
      ROOM_TTL: '2d',
      ALLOWED_ORIGINS: 'https://chat.example.com, http://localhost:5173',
      TRUST_PROXY: '10.0.0.0/8,::1',
      WEB_DIST: dist,
      LOG_LEVEL: 'debug',
      REPLICA_ID: 'api-2',
      CREDENTIALS_PER_MINUTE: '60',
      CONNECTIONS_PER_IP: '7',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      jwtSecret: SECRET,
      tokenTtlSeconds: 5400,
      historyMax: 50,
      roomTtlSeconds: 2 * 86400,
      allowedOrigins: ['https://chat.example.com', 'http://localhost:5173'],
      trustProxy: ['10.0.0.0/8', '::1'],
      webDist: dist,
      replicaId: 'api-2',
      credentialsPerMinute: 60,
      connectionsPerIp: 7,
    });
    expect(config.logLevel).toBe('debug');
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', HISTORY_MAX: '  ', WEB_DIST: 'off' }).port).toBe(3000);
  });

  it.each([
    [{ PORT: 'abc' }, /PORT must be a whole number from 0 to 65535 \(got "abc"\)/],
    [{ PORT: '70000' }, /PORT must be a whole number/],
    [{ PORT: '3000.5' }, /PORT must be a whole number/],
    [{ HISTORY_MAX: '0' }, /HISTORY_MAX must be a whole number from 1/],
    [{ TOKEN_TTL: 'forever' }, /TOKEN_TTL must be a duration/],
    [{ ROOM_TTL: '-1d' }, /ROOM_TTL must be a duration/],
    [
      { ALLOWED_ORIGINS: 'chat.example.com' },
      /ALLOWED_ORIGINS must be a comma-separated list of origins/,
    ],
    [{ ALLOWED_ORIGINS: 'https://chat.example.com/path' }, /ALLOWED_ORIGINS/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY must be a comma-separated list/],
    [{ TRUST_PROXY: 'nginx,bad host' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '999.1.2.3' }, /TRUST_PROXY/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ REPLICA_ID: 'has space' }, /REPLICA_ID/],
    [{ JWT_SECRET: 'short' }, /JWT_SECRET must be at least 32 bytes/],
    [{ REDIS_URL: 'http://redis' }, /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    [{ REDIS_CLUSTER_NODES: 'redis-1:7000,,redis-2:7001' }, /REDIS_CLUSTER_NODES must be/],
    [{ REDIS_CLUSTER_NODES: 'redis-1' }, /REDIS_CLUSTER_NODES must be .*got "redis-1"/],
    [{ REDIS_CLUSTER_NODES: 'redis-1:70000' }, /REDIS_CLUSTER_NODES must be/],
    [
      { REDIS_URL: 'redis://redis:6379', REDIS_CLUSTER_NODES: 'redis-1:7000' },
      /REDIS_URL .* or REDIS_CLUSTER_NODES .*, not both/,
    ],
    [
      { REDIS_URL: 'redis://redis:6379', REDIS_WAIT_REPLICAS: '-1' },
      /REDIS_WAIT_REPLICAS must be a whole number from 0 to 16 \(got "-1"\)/,
    ],
    [{ REDIS_URL: 'redis://redis:6379', REDIS_WAIT_REPLICAS: 'one' }, /REDIS_WAIT_REPLICAS/],
    [{ REDIS_WAIT_REPLICAS: '1' }, /REDIS_WAIT_REPLICAS needs REDIS_URL or REDIS_CLUSTER_NODES/],
    [
      { REDIS_URL: 'redis://redis:6379', REDIS_WAIT_TIMEOUT_MS: '0' },
      /REDIS_WAIT_TIMEOUT_MS must be a whole number from 1 to 600000/,
    ],
    [{ REDIS_WAIT_TIMEOUT_MS: '2s' }, /REDIS_WAIT_TIMEOUT_MS must be a whole number/],
    [{ WEB_DIST: '/nowhere/at/all' }, /WEB_DIST must be a built web client folder/],
    [{ CONNECTIONS_PER_IP: '0' }, /CONNECTIONS_PER_IP/],
    [{ CREDENTIALS_PER_MINUTE: 'many' }, /CREDENTIALS_PER_MINUTE/],
  ])('refuses %p with a clear message', (env, message) => {
    expect(problemsOf({ WEB_DIST: 'off', ...env }).join('\n')).toMatch(message);
  });

  it('names every problem at once', () => {
    const problems = problemsOf({ PORT: 'x', LOG_LEVEL: 'y', WEB_DIST: 'off' });
    expect(problems).toHaveLength(2);
    expect(new ConfigError(problems).message).toMatch(/^Invalid configuration:\n {2}- /);
  });
});
