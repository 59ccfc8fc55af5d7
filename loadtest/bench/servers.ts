/**
 * The servers under test, started as real processes on loopback, each as two processes (ports)
 * sharing one redis-server, addressed directly by port by the load clients:
 * - Taco Chat: `startCluster` (@taco/harness) with 2 api replicas and rate limits raised, on one
 *   Redis or on a Redis Cluster;
 * - Socket.IO 4 + @socket.io/redis-adapter (loadtest/peers/socketio-server.ts);
 * - the raw ws + ioredis ceiling (loadtest/peers/raw-server.ts).
 * Redis runs with the repository's redis.conf and the cluster runner's flags for all three.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  baseEnvironment,
  childPids,
  type Cluster,
  freePorts,
  httpStatus,
  type RedisCluster,
  redisService,
  REPO_ROOT,
  SCENARIO_ENV,
  Service,
  startCluster,
} from '@taco/harness';

export type ServerId = 'taco' | 'socketio' | 'raw';

export const SERVER_NAMES: Record<ServerId, string> = {
  taco: 'Taco Chat',
  socketio: 'Socket.IO 4',
  raw: 'raw ws',
};

export interface RunningServer {
  id: ServerId;
  /** One port per process, in order. */
  ports: number[];
  /** The server processes (one per port), in the same order. */
  processPids(): number[];
  /** The redis-server processes, each with a name for the report (one node unless a cluster). */
  redisNodes(): RedisNode[];
  /** nginx's master and workers when the load clients go through it (`viaNginx`), else none. */
  nginxPids(): number[];
  /** The harness's cluster (replicas' URLs and handles, Redis) when Taco Chat runs on one. */
  cluster?: Cluster;
  stop(): Promise<void>;
}

interface RedisNode {
  name: string;
  pid: number;
}

const START_TIMEOUT_MS = 30_000;
const PEERS_DIR = resolve(__dirname, '..', 'peers');

const pids = (list: readonly (number | undefined)[]) => list.filter((pid) => pid !== undefined);
const standaloneRedis = (pid: number | undefined) => (pid ? [{ name: 'redis', pid }] : []);

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

/** Where Taco Chat runs, beside the profile folder every server takes. */
export interface TacoOptions {
  /** The load clients go through nginx instead of to each replica's port; nginx's CPU counts. */
  viaNginx?: boolean;
  /** On a Redis Cluster of this many masters, one replica each, instead of one Redis. */
  masters?: number;
}

/** Names each node of a Redis Cluster for the report (`:port master|replica`), with its pid. */
async function clusterNodes(cluster: RedisCluster): Promise<RedisNode[]> {
  return Promise.all(
    cluster.nodes.map(async (node) => {
      const role = (await cluster.cli(node.port, 'role')).split('\n', 1)[0] ?? '';
      const name = `:${node.port} ${role === 'slave' ? 'replica' : role}`;
      return { name, pid: await redisNodePid(cluster, node.port) };
    }),
  );
}

/**
 * Taco Chat by the harness's `startCluster`: replicas, nginx, and one Redis or a Redis Cluster
 * (`REDIS_CLUSTER_NODES`: sharded pub/sub), every node's CPU counted under its own name.
 */
async function startTaco(
  replicas: number,
  profileDir: string | undefined,
  { viaNginx = false, masters }: TacoOptions,
): Promise<RunningServer> {
  const cluster = await startCluster({
    replicas,
    env: { ...SCENARIO_ENV, ...hooksEnv(profileDir) },
    output: 'quiet',
    ...(masters === undefined ? {} : { redisCluster: { masters, replicasPerMaster: 1 } }),
  });
  const nodes = cluster.redisCluster
    ? await clusterNodes(cluster.redisCluster).catch(async (error: unknown) => {
        await cluster.stop();
        throw error;
      })
    : undefined;
  const nginxPids = () => {
    const master = cluster.nginx.pid;
    return viaNginx && master !== undefined ? [master, ...childPids(master)] : [];
  };
  return {
    id: 'taco',
    // Through nginx: one address, nginx spreads the sockets over the replicas.
    ports: viaNginx ? [cluster.nginx.port] : cluster.replicas.map((replica) => replica.port),
    processPids: () => pids(cluster.replicas.map((replica) => replica.pid)),
    redisNodes: () => nodes ?? standaloneRedis(cluster.redis?.pid),
    nginxPids,
    cluster,
    stop: () => cluster.stop(),
  };
}

/**
 * Starts a process of the benchmark's own and waits until it is ready; killed if that fails, or if
 * the parent exits without stopping it.
 */
async function startService(service: Service): Promise<Service> {
  const kill = () => service.kill('SIGKILL');
  process.once('exit', kill);
  const started = service.start();
  void service.exited.then(() => process.removeListener('exit', kill));
  await started.catch(async (error: unknown) => {
    await service.stop('SIGKILL', 5000);
    throw error;
  });
  return service;
}

/**
 * A redis-server (the repository's redis.conf, overridden by `settings`) on a free loopback port
 * in a folder of its own, removed on `stop`.
 */
export async function startRedis(settings: Record<string, string> = {}) {
  const [port = 0] = await freePorts(1);
  const dir = mkdtempSync(join(tmpdir(), 'taco-bench-redis-'));
  const redis = redisService('redis', port, dir, { settings });
  const stop = async () => {
    await redis.stop('SIGTERM', 5000);
    rmSync(dir, { recursive: true, force: true });
  };
  await startService(redis).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url: redis.url, pid: () => redis.pid, stop };
}

/** A peer (`peers/<id>-server.ts`) as one Node process per port beside its own redis-server. */
async function startPeer(
  id: 'socketio' | 'raw',
  replicas: number,
  profileDir: string | undefined,
): Promise<RunningServer> {
  const redis = await startRedis();
  const ports = await freePorts(replicas);
  const script = join(PEERS_DIR, `${id}-server.ts`);
  const env = { ...baseEnvironment(), REDIS_URL: redis.url, ...hooksEnv(profileDir) };
  const peers: Service[] = [];
  const stop = async () => {
    await Promise.all(peers.map((child) => child.stop('SIGTERM', 5000)));
    await redis.stop();
  };
  try {
    for (const [index, port] of ports.entries()) {
      const name = `${id}-${index + 1}`;
      const url = `http://127.0.0.1:${port}`;
      const peer = new Service({
        name,
        command: process.execPath,
        args: ['--import', 'tsx', script],
        cwd: REPO_ROOT,
        env: { ...env, PORT: String(port), REPLICA_ID: name },
        output: 'quiet',
        port,
        url,
        startTimeoutMs: START_TIMEOUT_MS,
        ready: async () => (await httpStatus(`${url}/health`)) === 200,
      });
      peers.push(await startService(peer));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    id,
    ports,
    processPids: () => pids(peers.map((child) => child.pid)),
    redisNodes: () => standaloneRedis(redis.pid()),
    nginxPids: () => [],
    stop,
  };
}

/** The pid a Redis node reports about itself. */
export async function redisNodePid(cluster: RedisCluster, port: number): Promise<number> {
  const info = await cluster.cli(port, 'info', 'server');
  const pid = Number(/^process_id:(\d+)/m.exec(info)?.[1]);
  if (!Number.isInteger(pid)) throw new Error(`redis node on port ${port} did not say its pid`);
  return pid;
}

/** Starts one of the servers; `taco` (Taco Chat only) says where it runs. */
export function startServer(
  id: ServerId,
  replicas: number,
  profileDir?: string,
  taco: TacoOptions = {},
): Promise<RunningServer> {
  return id === 'taco'
    ? startTaco(replicas, profileDir, taco)
    : startPeer(id, replicas, profileDir);
}
