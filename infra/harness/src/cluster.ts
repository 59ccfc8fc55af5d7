import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { renderNginxConfig } from '../../nginx/render-nginx-config';
import { baseEnvironment, REPO_ROOT, redisServerArgs } from './environment';
import { type RedisCluster, startRedisCluster } from './redis-cluster';
import type { Cluster, ClusterOptions, RedisHandle, ReplicaHandle } from './cluster-handles';
import { findExecutable, followFile, ManagedProcess } from './managed-process';
import { freePorts, httpStatus, redisPing, waitFor } from './wait';

export const API_ENTRY = join(REPO_ROOT, 'api', 'dist', 'main.js');
export const DEFAULT_WEB_DIST = join(REPO_ROOT, 'web', 'dist');

export { baseEnvironment, REDIS_CONF, REPO_ROOT, redisServerArgs } from './environment';
export type * from './cluster-handles';

const STOP_GRACE_MS = 5000;

/** nginx started by root drops its workers to `nobody`; they must be able to read what it serves. */
export function nginxUser(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const groups = existsSync('/etc/group') ? readFileSync('/etc/group', 'utf8') : '';
  return /^nogroup:/m.test(groups) ? 'nobody nogroup' : 'nobody';
}

/** The process ids whose parent is `pid` (nginx's workers, of its master). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid …: the command name may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

function tail(lines: readonly string[], count = 20): string {
  return lines.slice(-count).join('\n');
}

/**
 * Starts Redis, `replicas` api processes and nginx in front of them, all on loopback, in a fresh
 * temporary folder, and waits until each replica is ready and nginx answers.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
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
  for (const command of useRedis ? ['nginx', 'redis-server'] : ['nginx']) {
    if (findExecutable(command) === command) {
      throw new Error(`${command} is not installed (Debian: apt-get install ${command})`);
    }
  }
  if (!existsSync(API_ENTRY)) throw new Error(`${API_ENTRY} is missing: run npm run build first`);
  const webDist = resolve(options.webDist ?? DEFAULT_WEB_DIST);
  if (!existsSync(join(webDist, 'index.html'))) {
    throw new Error(`${webDist} has no index.html: run npm run build first`);
  }

  const workDir = mkdtempSync(join(tmpdir(), 'taco-cluster-'));
  try {
    return await launch(workDir, webDist, replicaCount, useRedis, options);
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
}

async function launch(
  workDir: string,
  webDist: string,
  replicaCount: number,
  useRedis: boolean,
  options: ClusterOptions,
): Promise<Cluster> {
  const output = options.output ?? 'quiet';
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const [redisPort = 0, ...replicaPorts] = await freePorts(replicaCount + 1);
  /** nginx's port: picked just before nginx starts (below), not while the replicas boot. */
  let port = options.port ?? 0;

  // Everything nginx's workers touch must be readable by them (they run as nobody under root).
  chmodSync(workDir, 0o755);
  const redisDir = join(workDir, 'redis');
  const nginxDir = join(workDir, 'nginx');
  const wwwDir = join(workDir, 'www');
  mkdirSync(redisDir);
  mkdirSync(join(nginxDir, 'temp'), { recursive: true });
  cpSync(webDist, wwwDir, { recursive: true });

  const processes: ManagedProcess[] = [];
  const killAll = () => {
    for (const child of processes) child.kill('SIGKILL');
    for (const node of started.redisCluster?.nodes ?? []) node.kill('SIGKILL');
    rmSync(workDir, { recursive: true, force: true });
  };
  // Redis, with the repository's redis.conf and loopback overrides: one, or a cluster of six.
  const started: { redisCluster?: RedisCluster } = {};
  const useCluster =
    useRedis && options.redisCluster !== undefined && options.redisCluster !== false;
  const redis =
    useRedis && !useCluster
      ? new ManagedProcess({
          name: 'redis',
          command: findExecutable('redis-server'),
          args: redisServerArgs(redisPort, redisDir),
          cwd: redisDir,
          env: baseEnvironment(),
          output,
        })
      : undefined;
  if (redis) processes.push(redis);
  if (useCluster) {
    // First: the replicas' REDIS_CLUSTER_NODES names its nodes (free ports of their own).
    started.redisCluster = await startRedisCluster({
      ...(typeof options.redisCluster === 'object' ? options.redisCluster : {}),
      dir: join(workDir, 'redis-cluster'),
      output,
      startTimeoutMs,
    });
  }
  const startRedis = async () => {
    if (!redis) return;
    redis.start();
    await waitFor(`redis on port ${redisPort}`, () => redisPing(redisPort), {
      timeoutMs: startTimeoutMs,
      abort: () => (redis.isRunning ? undefined : `exited:\n${tail(redis.lines)}`),
    });
  };

  const replicas = replicaPorts.map((replicaPort, index) => {
    const id = `api-${index + 1}`;
    const env: NodeJS.ProcessEnv = {
      ...baseEnvironment(),
      PORT: String(replicaPort),
      HOST: '127.0.0.1',
      REPLICA_ID: id,
      WEB_DIST: 'off',
      TRUST_PROXY: '127.0.0.1',
      ...(redis ? { REDIS_URL: `redis://127.0.0.1:${redisPort}` } : {}),
      ...(started.redisCluster ? { REDIS_CLUSTER_NODES: started.redisCluster.seeds } : {}),
      ...options.env,
    };
    const child = new ManagedProcess({
      name: id,
      command: process.execPath,
      args: [API_ENTRY],
      cwd: REPO_ROOT,
      env,
      output,
    });
    processes.push(child);
    return { id, port: replicaPort, process: child };
  });
  const startReplica = async (replica: (typeof replicas)[number]) => {
    replica.process.start();
    await waitFor(
      `${replica.id} ready on port ${replica.port}`,
      async () => (await httpStatus(`http://127.0.0.1:${replica.port}/api/health/ready`)) === 200,
      {
        timeoutMs: startTimeoutMs,
        abort: () =>
          replica.process.isRunning ? undefined : `exited:\n${tail(replica.process.lines)}`,
      },
    );
  };

  const configPath = join(nginxDir, 'nginx.conf');
  const accessLog = join(nginxDir, 'access.log');
  const errorLog = join(nginxDir, 'error.log');
  /** The replicas nginx's upstream lists (`route` changes it). */
  let routed = replicas;
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
  processes.push(nginx);
  // nginx writes its errors to a file, not to its output: show them as its lines all the same.
  const errorTail = followFile(errorLog, (line) => nginx.record(line));

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      await nginx.stop('SIGTERM', STOP_GRACE_MS);
      await Promise.all(replicas.map((replica) => replica.process.stop('SIGTERM', STOP_GRACE_MS)));
      await redis?.stop('SIGTERM', STOP_GRACE_MS);
      await started.redisCluster?.stop();
      errorTail.stop();
      process.removeListener('exit', killAll);
      rmSync(workDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  // If the test runner or CLI exits without calling stop(), do not leave children behind.
  process.once('exit', killAll);
  try {
    await startRedis();
    await Promise.all(replicas.map(startReplica));
    await writeNginxConfig();
    nginx.start();
    await waitFor(
      `nginx on port ${port}`,
      async () => (await httpStatus(`http://127.0.0.1:${port}/api/health/live`)) === 200,
      {
        timeoutMs: startTimeoutMs,
        abort: () => (nginx.isRunning ? undefined : `exited:\n${tail(nginx.lines)}`),
      },
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const replicaHandles: ReplicaHandle[] = replicas.map((replica) => ({
    id: replica.id,
    port: replica.port,
    url: `http://127.0.0.1:${replica.port}`,
    get pid() {
      return replica.process.pid;
    },
    get isRunning() {
      return replica.process.isRunning;
    },
    get exited() {
      return replica.process.exited;
    },
    lines: replica.process.lines,
    kill: (signal?: NodeJS.Signals) => replica.process.kill(signal),
    restart: async () => {
      await replica.process.stop('SIGTERM', STOP_GRACE_MS);
      await startReplica(replica);
    },
  }));

  const route = async (chosen: readonly ReplicaHandle[]) => {
    const ids = new Set(chosen.map((handle) => handle.id));
    const next = replicas.filter((replica) => ids.has(replica.id));
    if (next.length === 0 || next.length !== ids.size) {
      throw new Error(`route: ${[...ids].join(', ')} are not replicas of this cluster (or none)`);
    }
    const master = nginx.pid;
    if (master === undefined) throw new Error('route: nginx is not running');
    routed = next;
    await writeNginxConfig();
    const before = new Set(childrenOf(master));
    nginx.kill('SIGHUP');
    // nginx starts new workers only once the new config loaded; a bad one keeps the old workers.
    await waitFor(
      'nginx reloaded with the new upstream',
      () => childrenOf(master).some((pid) => !before.has(pid)),
      {
        timeoutMs: 10_000,
        intervalMs: 20,
        abort: () => (nginx.isRunning ? undefined : `exited:\n${tail(nginx.lines)}`),
      },
    );
  };

  const redisHandle: RedisHandle | null = redis
    ? {
        port: redisPort,
        url: `redis://127.0.0.1:${redisPort}`,
        dir: redisDir,
        get pid() {
          return redis.pid;
        },
        get isRunning() {
          return redis.isRunning;
        },
        get exited() {
          return redis.exited;
        },
        lines: redis.lines,
        stop: (signal: NodeJS.Signals = 'SIGTERM') => redis.stop(signal, STOP_GRACE_MS),
        start: startRedis,
      }
    : null;

  return {
    url: `http://127.0.0.1:${port}`,
    workDir,
    replicas: replicaHandles,
    redis: redisHandle,
    redisCluster: started.redisCluster ?? null,
    nginx: {
      port,
      get pid() {
        return nginx.pid;
      },
      configPath,
      accessLog,
      errorLog,
      lines: nginx.lines,
      get routed() {
        return replicaHandles.filter((handle) => routed.some((r) => r.id === handle.id));
      },
      route,
    },
    stop,
  };
}
