/**
 * The servers under test, on loopback, each as processes on ports of their own sharing one
 * redis-server (the repository's redis.conf), addressed directly by port by the load clients:
 * Taco Chat by the harness's `startCluster` (rate limits raised; one Redis or a Redis Cluster),
 * and the peers Socket.IO 4 + @socket.io/redis-adapter and raw ws + ioredis (loadtest/peers/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  baseEnvironment,
  childPids,
  freePorts,
  httpStatus,
  type RedisCluster,
  redisService,
  REPO_ROOT,
  SCENARIO_ENV,
  Service,
  startCluster,
} from '@taco/harness';

export const SERVER_NAMES = { taco: 'Taco Chat', socketio: 'Socket.IO 4', raw: 'raw ws' };
export type ServerId = keyof typeof SERVER_NAMES;
export const SERVER_IDS = Object.keys(SERVER_NAMES) as ServerId[];

/**
 * A server under test: `ports`, one per process, in order; `processPids()`, those processes;
 * `redisNodes()`, each redis-server named for the report (one unless a Redis Cluster);
 * `nginxPids()`, nginx's master and workers when the load clients go through it (`viaNginx`),
 * else none; `cluster`, the harness's cluster (replicas' URLs and handles, Redis) of Taco Chat.
 */
export type RunningServer = Awaited<ReturnType<typeof startServer>>;

const pids = (list: readonly (number | undefined)[]) => list.filter((pid) => pid !== undefined);
const standaloneRedis = (pid: number | undefined) => (pid ? [{ name: 'redis', pid }] : []);

/**
 * The same preload for every server process (server-hooks.cjs): a full GC on SIGUSR2 (the idle
 * workload reads memory after one) and, with a folder, a V8 CPU profile written there when the
 * process stops.
 */
const hooksEnv = (profileDir: string | undefined): Record<string, string> => ({
  NODE_OPTIONS: `--expose-gc --require ${resolve(__dirname, 'server-hooks.cjs')}`,
  ...(profileDir ? { BENCH_PROFILE_DIR: profileDir } : {}),
});

/** Where Taco Chat runs, beside the profile folder every server takes. */
export interface TacoOptions {
  /** The load clients go through nginx instead of to each replica's port; nginx's CPU counts. */
  viaNginx?: boolean;
  /** On a Redis Cluster of this many masters, one replica each, instead of one Redis. */
  masters?: number;
}

/** Each node of a Redis Cluster named for the report (`:port master|replica`), with its pid. */
function clusterNodes(cluster: RedisCluster) {
  return Promise.all(
    cluster.nodes.map(async (node) => {
      const role = (await cluster.cli(node.port, 'role')).split('\n', 1)[0] ?? '';
      return { name: `:${node.port} ${role === 'slave' ? 'replica' : role}`, pid: node.pid ?? 0 };
    }),
  );
}

/** Taco Chat by the harness's `startCluster`: replicas, nginx, and one Redis or a Redis Cluster. */
async function startTaco(
  replicas: number,
  profileDir: string | undefined,
  { viaNginx = false, masters }: TacoOptions,
) {
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
  const nginx = cluster.nginx.pid;
  return {
    id: 'taco' as const,
    // Through nginx: one address, nginx spreads the sockets over the replicas.
    ports: viaNginx ? [cluster.nginx.port] : cluster.replicas.map((replica) => replica.port),
    processPids: () => pids(cluster.replicas.map((replica) => replica.pid)),
    redisNodes: () => nodes ?? standaloneRedis(cluster.redis?.pid),
    nginxPids: () => (viaNginx && nginx !== undefined ? [nginx, ...childPids(nginx)] : []),
    cluster,
    stop: () => cluster.stop(),
  };
}

/**
 * Starts processes and waits until they are ready; all stopped (then `after` runs) if one fails,
 * and killed if the parent exits first. Resolves with what stops them all, then runs `after`.
 */
async function startAll(services: Service[], after: () => unknown) {
  const kill = () => services.forEach((service) => service.kill('SIGKILL'));
  process.once('exit', kill);
  const stop = async () => {
    await Promise.all(services.map((service) => service.stop('SIGTERM', 5000)));
    process.removeListener('exit', kill);
    await after();
  };
  await Promise.all(services.map((service) => service.start())).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return stop;
}

/**
 * A redis-server (the repository's redis.conf, overridden by `settings`) on a free loopback port
 * in a folder of its own, removed on `stop`.
 */
export async function startRedis(settings: Record<string, string> = {}) {
  const [port = 0] = await freePorts(1);
  const dir = mkdtempSync(join(tmpdir(), 'taco-bench-redis-'));
  const redis = redisService('redis', port, dir, { settings });
  const stop = await startAll([redis], () => rmSync(dir, { recursive: true, force: true }));
  return { url: redis.url, pid: () => redis.pid, stop };
}

/** A peer (`peers/<id>-server.ts`) as one Node process per port beside its own redis-server. */
async function startPeer(id: 'socketio' | 'raw', replicas: number, profileDir: string | undefined) {
  const redis = await startRedis();
  const script = resolve(__dirname, '..', 'peers', `${id}-server.ts`);
  const env = { ...baseEnvironment(), REDIS_URL: redis.url, ...hooksEnv(profileDir) };
  const ports = await freePorts(replicas);
  const peers = ports.map((port, index) => {
    const [name, url] = [`${id}-${index + 1}`, `http://127.0.0.1:${port}`];
    return new Service({
      name,
      command: process.execPath,
      args: ['--import', 'tsx', script],
      cwd: REPO_ROOT,
      env: { ...env, PORT: String(port), REPLICA_ID: name },
      output: 'quiet',
      port,
      url,
      startTimeoutMs: 30_000,
      ready: async () => (await httpStatus(`${url}/health`)) === 200,
    });
  });
  const stop = await startAll(peers, redis.stop);
  return {
    id,
    ports,
    processPids: () => pids(peers.map((child) => child.pid)),
    redisNodes: () => standaloneRedis(redis.pid()),
    nginxPids: (): number[] => [],
    cluster: undefined,
    stop,
  };
}

/** Starts one of the servers; `taco` (Taco Chat only) says where it runs. */
export function startServer(
  id: ServerId,
  replicas: number,
  profileDir?: string,
  taco: TacoOptions = {},
) {
  return id === 'taco'
    ? startTaco(replicas, profileDir, taco)
    : startPeer(id, replicas, profileDir);
}
