import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { renderNginxConfig } from '../../nginx/render-nginx-config';
import { baseEnvironment, REPO_ROOT } from './environment';
import { type RedisClusterOptions, redisService, startRedisCluster } from './redis-cluster';
import {
  findExecutable,
  followFile,
  ManagedProcess,
  requireExecutables,
  type OutputMode,
  Service,
} from './managed-process';
import { childPids } from './proc-stats';
import { freePorts, httpStatus } from './wait';

export const API_ENTRY = join(REPO_ROOT, 'api', 'dist', 'main.js');
export const DEFAULT_WEB_DIST = join(REPO_ROOT, 'web', 'dist');

export interface ClusterOptions {
  /** api replicas behind nginx (default 3). */
  replicas?: number;
  /** nginx's port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** The built web client nginx serves (default web/dist). */
  webDist?: string;
  /** Extra environment for every replica (rate limits, LOG_LEVEL…). */
  env?: Record<string, string>;
  /**
   * Run Redis and point the replicas at it (default). `false` runs one embedded replica with
   * in-memory state behind nginx, which only makes sense with `replicas: 1`.
   */
  redis?: boolean;
  /**
   * Run a Redis Cluster instead of one Redis: 3 masters and 3 replicas of `redis-server` on
   * loopback (or as many as the options say), created with `redis-cli --cluster create`; the
   * replicas get `REDIS_CLUSTER_NODES`.
   */
  redisCluster?: boolean | Pick<RedisClusterOptions, 'masters' | 'replicasPerMaster'>;
  /** `stream` prints every child's output as `[name] line`; `quiet` (default) only keeps it. */
  output?: OutputMode;
  /** Bound on each start-up wait (default 30 s). */
  startTimeoutMs?: number;
}

/** nginx started by root drops its workers to `nobody`; they must be able to read what it serves. */
export function nginxUser(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const groups = existsSync('/etc/group') ? readFileSync('/etc/group', 'utf8') : '';
  return /^nogroup:/m.test(groups) ? 'nobody nogroup' : 'nobody';
}

/**
 * Starts Redis, `replicas` api processes and nginx in front of them, all on loopback, in a fresh
 * temporary folder, and waits until each replica is ready and nginx answers.
 */
export async function startCluster(options: ClusterOptions = {}) {
  const replicaCount = options.replicas ?? 3;
  const useRedis = options.redis ?? true;
  if (!Number.isInteger(replicaCount) || replicaCount < 1) {
    throw new Error(`replicas must be a whole number of at least 1 (got ${replicaCount})`);
  }
  if (!useRedis && replicaCount !== 1) {
    throw new Error('Without Redis each replica would have its own rooms: use replicas: 1');
  }
  if (!useRedis && options.redisCluster) {
    throw new Error('A Redis Cluster is Redis: redisCluster needs redis');
  }
  requireExecutables(useRedis ? ['nginx', 'redis-server'] : ['nginx']);
  if (!existsSync(API_ENTRY)) throw new Error(`${API_ENTRY} is missing: run npm run build first`);
  const webDist = resolve(options.webDist ?? DEFAULT_WEB_DIST);
  if (!existsSync(join(webDist, 'index.html'))) {
    throw new Error(`${webDist} has no index.html: run npm run build first`);
  }

  const { output, startTimeoutMs } = options;
  const [redisPort = 0, ...replicaPorts] = await freePorts(replicaCount + 1);
  const workDir = mkdtempSync(join(tmpdir(), 'taco-cluster-'));
  const removeWorkDir = () => rmSync(workDir, { recursive: true, force: true });
  /** nginx's port: picked just before nginx starts (below), not while the replicas boot. */
  let port = options.port ?? 0;

  const nginxDir = join(workDir, 'nginx');
  const wwwDir = join(workDir, 'www');
  // Redis, with the repository's redis.conf and loopback overrides: one, or a cluster of six.
  const useCluster = useRedis && Boolean(options.redisCluster);
  const redis =
    useRedis && !useCluster
      ? redisService('redis', redisPort, join(workDir, 'redis'), { output, startTimeoutMs })
      : null;
  // Until `stop` below exists, a failure removes the folder here.
  const redisCluster = await (async () => {
    // Everything nginx's workers touch must be readable by them (they run as nobody under root).
    chmodSync(workDir, 0o755);
    mkdirSync(join(nginxDir, 'temp'), { recursive: true });
    cpSync(webDist, wwwDir, { recursive: true });
    // First: the replicas' REDIS_CLUSTER_NODES names its nodes (free ports of their own).
    if (!useCluster) return null;
    const sizes = typeof options.redisCluster === 'object' ? options.redisCluster : {};
    return startRedisCluster({
      ...sizes,
      dir: join(workDir, 'redis-cluster'),
      output,
      startTimeoutMs,
    });
  })().catch((error: unknown) => {
    removeWorkDir();
    throw error;
  });

  const replicas = replicaPorts.map((replicaPort, index) => {
    const url = `http://127.0.0.1:${replicaPort}`;
    return new Service({
      name: `api-${index + 1}`,
      command: process.execPath,
      args: [API_ENTRY],
      cwd: REPO_ROOT,
      env: {
        ...baseEnvironment(),
        PORT: String(replicaPort),
        HOST: '127.0.0.1',
        REPLICA_ID: `api-${index + 1}`,
        WEB_DIST: 'off',
        TRUST_PROXY: '127.0.0.1',
        ...(redis ? { REDIS_URL: redis.url } : {}),
        ...(redisCluster ? { REDIS_CLUSTER_NODES: redisCluster.seeds } : {}),
        ...options.env,
      },
      output,
      port: replicaPort,
      url,
      ready: async () => (await httpStatus(`${url}/api/health/ready`)) === 200,
      startTimeoutMs,
    });
  });

  const configPath = join(nginxDir, 'nginx.conf');
  const accessLog = join(nginxDir, 'access.log');
  const errorLog = join(nginxDir, 'error.log');
  /** The replicas nginx's upstream lists (`route` changes it). */
  let routed: readonly Service[] = replicas;
  // A port picked seconds earlier may be taken meanwhile (a free port is also what the kernel
  // hands out for outgoing connections, and the replicas make many while they boot).
  const writeNginxConfig = async () => {
    if (options.port === undefined && port === 0) [port = 0] = await freePorts(1);
    writeFileSync(
      configPath,
      renderNginxConfig({
        listen: `127.0.0.1:${port}`,
        upstreams: routed.map((replica) => `127.0.0.1:${replica.port}`),
        webRoot: wwwDir,
        pidFile: join(nginxDir, 'nginx.pid'),
        tempDir: join(nginxDir, 'temp'),
        accessLog,
        errorLog,
        user: nginxUser(),
        foreground: true,
      }),
    );
  };
  const nginx = new ManagedProcess({
    name: 'nginx',
    command: findExecutable('nginx'),
    // -e: the error log from the first line on (before the config is read), not /var/log/nginx.
    args: ['-p', nginxDir, '-e', errorLog, '-c', configPath],
    cwd: nginxDir,
    env: baseEnvironment(),
    output,
  });
  // nginx writes its errors to a file, not to its output: show them as its lines all the same.
  const errorTail = followFile(errorLog, (line) => nginx.record(line));

  const killAll = () => {
    const nodes = [...(redis ? [redis] : []), ...(redisCluster?.nodes ?? [])];
    for (const child of [nginx, ...replicas, ...nodes]) child.kill('SIGKILL');
    removeWorkDir();
  };
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      // SIGTERM, then SIGKILL after 5 s: nginx first, Redis last.
      await nginx.stop();
      await Promise.all(replicas.map((replica) => replica.stop()));
      await redis?.stop();
      await redisCluster?.stop();
      errorTail.stop();
      process.removeListener('exit', killAll);
      removeWorkDir();
    })());

  // If the test runner or CLI exits without calling stop(), do not leave children behind.
  process.once('exit', killAll);
  try {
    await redis?.start();
    await Promise.all(replicas.map((replica) => replica.start()));
    await writeNginxConfig();
    await nginx.start();
    await nginx.waitUntil(
      `nginx on port ${port}`,
      async () => (await httpStatus(`http://127.0.0.1:${port}/api/health/live`)) === 200,
      { timeoutMs: startTimeoutMs },
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const route = async (chosen: readonly Service[]) => {
    const next = replicas.filter((replica) => chosen.some((handle) => handle.id === replica.id));
    const ids = new Set(chosen.map((handle) => handle.id));
    if (next.length === 0 || next.length !== ids.size) {
      throw new Error(`route: ${[...ids].join(', ')} are not replicas of this cluster (or none)`);
    }
    const master = nginx.pid;
    if (master === undefined) throw new Error('route: nginx is not running');
    routed = next;
    await writeNginxConfig();
    const before = new Set(childPids(master));
    nginx.kill('SIGHUP');
    // nginx starts new workers only once the new config loaded; a bad one keeps the old workers.
    await nginx.waitUntil(
      'nginx reloaded with the new upstream',
      () => childPids(master).some((pid) => !before.has(pid)),
      { timeoutMs: 10_000, intervalMs: 20 },
    );
  };

  return {
    /** http://127.0.0.1:port through nginx. */
    url: `http://127.0.0.1:${port}`,
    workDir,
    replicas: replicas as readonly Service[],
    /**
     * The one Redis: `stop(signal)` (SIGTERM: Redis flushes the AOF and exits) waits for the exit;
     * `start()` runs it again on the same port and folder, so the AOF is replayed.
     */
    redis,
    /** The Redis Cluster, with `redisCluster` (then `redis` is null). */
    redisCluster,
    nginx: Object.assign(nginx, {
      port,
      configPath,
      accessLog,
      errorLog,
      /**
       * Renders the upstream with only these replicas and reloads nginx (SIGHUP), as nginx in
       * front of a Kubernetes Service does once the endpoints drop a pod; resolves once nginx's
       * new workers run (the old ones keep only the connections they hold). Requests from then
       * on go to these.
       */
      route,
    }),
    /** Ends everything (SIGTERM, SIGKILL after a bounded wait) and removes the working folder. */
    stop,
  };
}

export type Cluster = Awaited<ReturnType<typeof startCluster>>;
