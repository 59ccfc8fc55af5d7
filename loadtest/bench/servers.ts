/**
 * The servers under test, started as real processes on loopback, each as two processes (ports)
 * sharing one redis-server, addressed directly by port by the load clients:
 * - Taco Chat: `startCluster` (@taco/harness, infra/harness) with 2 api replicas and rate limits raised;
 * - Socket.IO 4 + @socket.io/redis-adapter (loadtest/peers/socketio-server.ts);
 * - the raw ws + ioredis ceiling (loadtest/peers/raw-server.ts).
 * Redis runs with the repository's redis.conf and the cluster runner's flags for all three.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  API_ENTRY,
  baseEnvironment,
  findExecutable,
  freePorts,
  httpStatus,
  ManagedProcess,
  type RedisCluster,
  redisPing,
  redisServerArgs,
  REPO_ROOT,
  startCluster,
  startRedisCluster,
  waitFor,
} from '@taco/harness';
import { childPids } from './proc-stats';
import type { ClientKind } from './ipc';

export type ServerId = 'taco' | 'socketio' | 'raw';

export const SERVER_NAMES: Record<ServerId, string> = {
  taco: 'Taco Chat',
  socketio: 'Socket.IO 4',
  raw: 'raw ws',
};

export interface RunningServer {
  id: ServerId;
  kind: ClientKind;
  /** One port per process, in order. */
  ports: number[];
  /** The server processes (one per port), in the same order. */
  processPids(): number[];
  /** Every process whose CPU counts for this server: its processes and redis-server. */
  allPids(): number[];
  /** The redis-server processes, each with a name for the report (one node unless a cluster). */
  redisNodes(): RedisNode[];
  /** nginx's master and workers when the load clients go through it (`viaNginx`), else none. */
  nginxPids(): number[];
  stop(): Promise<void>;
}

export interface RedisNode {
  name: string;
  pid: number;
}

/** Rate limits raised so the benchmark measures delivery, not the abuse limits. */
const LOAD_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  MESSAGE_BURST: '10000',
  MESSAGES_PER_SECOND: '100000',
  TYPING_PER_SECOND: '1000',
  CREDENTIALS_PER_MINUTE: '1000000',
  CONNECTIONS_PER_IP: '1000000',
};

const START_TIMEOUT_MS = 30_000;
const PEERS_DIR = resolve(__dirname, '..', 'peers');

function pids(list: readonly (number | undefined)[]): number[] {
  return list.filter((pid): pid is number => pid !== undefined);
}

function standaloneRedis(pid: number | undefined): RedisNode[] {
  return pid === undefined ? [] : [{ name: 'redis', pid }];
}

const HOOKS = resolve(__dirname, 'server-hooks.cjs');

/**
 * The same preload for every server process: a full GC on SIGUSR2 (see collectGarbage) and, with
 * a folder, a V8 CPU profile written there when the process stops.
 */
function hooksEnv(profileDir: string | undefined): Record<string, string> {
  return {
    NODE_OPTIONS: `--expose-gc --require ${HOOKS}`,
    ...(profileDir ? { BENCH_PROFILE_DIR: profileDir } : {}),
  };
}

/** Asks server processes to run a full garbage collection (they are preloaded with the hooks). */
export function collectGarbage(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGUSR2');
    } catch {
      // Gone already.
    }
  }
}

async function startTaco(
  replicas: number,
  profileDir: string | undefined,
  viaNginx: boolean,
): Promise<RunningServer> {
  const cluster = await startCluster({
    replicas,
    env: { ...LOAD_ENV, ...hooksEnv(profileDir) },
    output: 'quiet',
    redis: true,
  });
  const processPids = () => pids(cluster.replicas.map((replica) => replica.pid));
  const nginxPids = () => {
    const master = cluster.nginx.pid;
    return viaNginx && master !== undefined ? [master, ...childPids(master)] : [];
  };
  return {
    id: 'taco',
    kind: 'taco',
    // Through nginx: one address, nginx spreads the sockets over the replicas.
    ports: viaNginx ? [cluster.nginx.port] : cluster.replicas.map((replica) => replica.port),
    processPids,
    allPids: () => [...processPids(), ...pids([cluster.redis?.pid]), ...nginxPids()],
    redisNodes: () => standaloneRedis(cluster.redis?.pid),
    nginxPids,
    stop: () => cluster.stop(),
  };
}

async function startPeer(
  id: 'socketio' | 'raw',
  replicas: number,
  profileDir: string | undefined,
): Promise<RunningServer> {
  const [redisPort = 0, ...ports] = await freePorts(replicas + 1);
  const workDir = mkdtempSync(join(tmpdir(), `taco-bench-${id}-`));
  const redis = new ManagedProcess({
    name: 'redis',
    command: findExecutable('redis-server'),
    args: redisServerArgs(redisPort, workDir),
    cwd: workDir,
    env: baseEnvironment(),
    output: 'quiet',
  });
  const script = join(PEERS_DIR, id === 'raw' ? 'raw-server.ts' : 'socketio-server.ts');
  const peers = ports.map(
    (port, index) =>
      new ManagedProcess({
        name: `${id}-${index + 1}`,
        command: process.execPath,
        args: ['--import', 'tsx', script],
        cwd: REPO_ROOT,
        env: {
          ...baseEnvironment(),
          PORT: String(port),
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          ...hooksEnv(profileDir),
        },
        output: 'quiet',
      }),
  );
  // If the benchmark exits without stopping them, do not leave children behind.
  const killAll = () => {
    for (const child of [...peers, redis]) child.kill('SIGKILL');
    rmSync(workDir, { recursive: true, force: true });
  };
  process.once('exit', killAll);
  const stop = async () => {
    await Promise.all(peers.map((peer) => peer.stop('SIGTERM', 5000)));
    await redis.stop('SIGTERM', 5000);
    process.removeListener('exit', killAll);
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    redis.start();
    await waitFor('redis', () => redisPing(redisPort), { timeoutMs: START_TIMEOUT_MS });
    for (const peer of peers) peer.start();
    await Promise.all(
      ports.map((port, index) =>
        waitFor(
          `${id} peer on port ${port}`,
          async () => (await httpStatus(`http://127.0.0.1:${port}/health`)) === 200,
          {
            timeoutMs: START_TIMEOUT_MS,
            abort: () => {
              const peer = peers[index];
              return peer && !peer.isRunning
                ? `exited:\n${peer.lines.slice(-20).join('\n')}`
                : undefined;
            },
          },
        ),
      ),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const processPids = () => pids(peers.map((peer) => peer.pid));
  return {
    id,
    kind: id,
    ports,
    processPids,
    allPids: () => [...processPids(), ...pids([redis.pid])],
    redisNodes: () => standaloneRedis(redis.pid),
    nginxPids: () => [],
    stop,
  };
}

/** The pid and role (`master`/`slave`) a Redis node reports about itself. */
async function nodeIdentity(cluster: RedisCluster, port: number) {
  const info = await cluster.cli(port, 'info', 'server');
  const pid = Number(/^process_id:(\d+)/m.exec(info)?.[1]);
  const role = (await cluster.cli(port, 'role')).split('\n', 1)[0] ?? '';
  if (!Number.isInteger(pid)) throw new Error(`redis node on port ${port} did not say its pid`);
  return { pid, role: role === 'slave' ? 'replica' : role };
}

/**
 * Taco Chat on a Redis Cluster (`REDIS_CLUSTER_NODES`: sharded pub/sub): `masters` masters with
 * one replica each on loopback (@taco/harness), and `replicas` api processes
 * addressed directly by port like the other servers. Every Redis node's CPU counts, each reported
 * by its own name (`:port master`).
 */
export async function startTacoOnRedisCluster(
  replicas: number,
  masters: number,
  profileDir?: string,
): Promise<RunningServer> {
  const cluster = await startRedisCluster({ masters, replicasPerMaster: 1 });
  const apis: ManagedProcess[] = [];
  const stop = async () => {
    await Promise.all(apis.map((api) => api.stop('SIGTERM', 5000)));
    await cluster.stop();
    process.removeListener('exit', killAll);
  };
  const killAll = () => {
    for (const api of apis) api.kill('SIGKILL');
    for (const node of cluster.nodes) node.kill('SIGKILL');
  };
  process.once('exit', killAll);
  try {
    const nodes = await Promise.all(
      cluster.nodes.map(async (node) => {
        const { pid, role } = await nodeIdentity(cluster, node.port);
        return { name: `:${node.port} ${role}`, pid };
      }),
    );
    const ports = await freePorts(replicas);
    for (const [index, port] of ports.entries()) {
      const api = new ManagedProcess({
        name: `api-${index + 1}`,
        command: process.execPath,
        args: [API_ENTRY],
        cwd: REPO_ROOT,
        env: {
          ...baseEnvironment(),
          PORT: String(port),
          HOST: '127.0.0.1',
          REPLICA_ID: `api-${index + 1}`,
          WEB_DIST: 'off',
          REDIS_CLUSTER_NODES: cluster.seeds,
          ...LOAD_ENV,
          ...hooksEnv(profileDir),
        },
        output: 'quiet',
      });
      apis.push(api);
      api.start();
    }
    await Promise.all(
      ports.map((port, index) =>
        waitFor(
          `api-${index + 1} ready on port ${port}`,
          async () => (await httpStatus(`http://127.0.0.1:${port}/api/health/ready`)) === 200,
          {
            timeoutMs: START_TIMEOUT_MS,
            abort: () => {
              const api = apis[index];
              return api && !api.isRunning
                ? `exited:\n${api.lines.slice(-20).join('\n')}`
                : undefined;
            },
          },
        ),
      ),
    );
    const processPids = () => pids(apis.map((api) => api.pid));
    return {
      id: 'taco',
      kind: 'taco',
      ports,
      processPids,
      allPids: () => [...processPids(), ...nodes.map((node) => node.pid)],
      redisNodes: () => nodes,
      nginxPids: () => [],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts one of the servers. `viaNginx` (Taco Chat only) sends the load clients through the
 * cluster runner's nginx instead of to each replica's port, and counts nginx's CPU as the server's.
 */
export function startServer(
  id: ServerId,
  replicas: number,
  profileDir?: string,
  viaNginx = false,
): Promise<RunningServer> {
  return id === 'taco'
    ? startTaco(replicas, profileDir, viaNginx)
    : startPeer(id, replicas, profileDir);
}
