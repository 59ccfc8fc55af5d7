/**
 * A real Redis Cluster on loopback for tests, the cluster runner and benchmarks: `masters`
 * `redis-server` nodes with `replicasPerMaster` replicas each (3 + 3 by default), created with
 * `redis-cli --cluster create`, each node in its own folder with the repository's redis.conf
 * (AOF on). A short `cluster-node-timeout` makes a failover take seconds, not the default 15 s.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { baseEnvironment, REDIS_CONF } from './environment';
import { findExecutable, type OutputMode, requireExecutables, Service } from './managed-process';
import { sum } from './probe';
import { freePorts, redisPing, waitFor } from './wait';

const run = promisify(execFile);

export interface RedisClusterOptions {
  /** Masters, each owning a third (or so) of the 16,384 slots (default 3). */
  masters?: number;
  /** Replicas per master (default 1). */
  replicasPerMaster?: number;
  /** A folder to hold the nodes' folders; a fresh temporary one (removed on stop) by default. */
  dir?: string;
  output?: OutputMode;
  /** Bound on each start-up wait (default 30 s). */
  startTimeoutMs?: number;
}

/** `CLUSTER NODES`, one node a line: its id, port, flags, master's id, link state, slots. */
function parseNodes(clusterNodes: string) {
  return clusterNodes.split('\n').map((line) => {
    const [id = '', address = '', flags = '', master = '', , , , state = '', ...slots] = line
      .trim()
      .split(' ');
    const port = Number(address.split('@', 1)[0]?.split(':')[1]);
    return { id, port, flags: flags.split(','), master, state, slots };
  });
}

/** The master that serves each slot range, by port. */
function mastersBySlot(clusterNodes: string): { port: number; from: number; to: number }[] {
  return parseNodes(clusterNodes)
    .filter((node) => node.flags.includes('master') && !node.flags.some((f) => f.includes('fail')))
    .filter((node) => node.state === 'connected')
    .flatMap(({ port, slots }) =>
      // `[…]`: a slot being migrated.
      slots
        .filter((slot) => !slot.startsWith('['))
        .map((slot) => slot.split('-'))
        .map(([from = '', to = from]) => ({ port, from: Number(from), to: Number(to) })),
    );
}

/**
 * `redis-server` with the repository's redis.conf (AOF on, no RDB snapshots), overridden for one
 * loopback port and folder (256 MB at most), and by `settings` (`--name value` each).
 */
export function redisService(
  name: string,
  port: number,
  dir: string,
  options: Pick<RedisClusterOptions, 'output' | 'startTimeoutMs'> & {
    settings?: Record<string, string>;
  } = {},
): Service {
  mkdirSync(dir, { recursive: true });
  return new Service({
    name,
    command: findExecutable('redis-server'),
    args: [
      REDIS_CONF,
      ...Object.entries({
        port: String(port),
        bind: '127.0.0.1',
        'protected-mode': 'yes',
        dir,
        maxmemory: '256mb',
        ...options.settings,
      }).flatMap(([setting, value]) => [`--${setting}`, value]),
    ],
    cwd: dir,
    env: baseEnvironment(),
    output: options.output,
    port,
    url: `redis://127.0.0.1:${port}`,
    ready: () => redisPing(port),
    startTimeoutMs: options.startTimeoutMs,
  });
}

export async function startRedisCluster(options: RedisClusterOptions = {}) {
  const masters = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  if (!Number.isInteger(masters) || masters < 3) {
    throw new Error(`A Redis Cluster needs at least 3 masters (got ${masters})`);
  }
  requireExecutables(['redis-server', 'redis-cli'], 'redis');
  const redisCli = findExecutable('redis-cli');
  const ownDir = options.dir === undefined;
  const root = options.dir ?? mkdtempSync(join(tmpdir(), 'taco-redis-cluster-'));
  const count = masters * (1 + replicasPerMaster);
  // Each node's client port, then each one's cluster bus port (named: not port + 10000).
  const ports = await freePorts(2 * count);
  const nodes = ports.slice(0, count).map((port, index) =>
    redisService(`redis-${port}`, port, join(root, String(port)), {
      ...options,
      settings: {
        'cluster-enabled': 'yes',
        'cluster-port': String(ports[count + index]),
        // How long a master may be silent before its replica takes over.
        'cluster-node-timeout': '2000',
        // A replica that lost its master for a while may still take over (tests kill masters).
        'cluster-replica-validity-factor': '0',
      },
    }),
  );
  const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);

  /** `redis-cli -p port …` against one node (127.0.0.1, its default host): its output, trimmed. */
  const cli = async (port: number, ...args: string[]) => {
    const { stdout } = await run(redisCli, ['-p', String(port), ...args], { timeout: 10_000 });
    return stdout.trim();
  };

  /** Waits until every running node reports `cluster_state:ok` and every slot has a master. */
  const waitUntilHealthy = async (timeoutMs = options.startTimeoutMs) => {
    await waitFor(
      'redis cluster healthy',
      async () => {
        const running = nodes.filter((node) => node.isRunning);
        for (const node of running) {
          const info = await cli(node.port, 'cluster', 'info').catch(() => '');
          if (!info.includes('cluster_state:ok')) return false;
          // A replica counts once it holds its master's data (initial sync done, link up).
          const replication = await cli(node.port, 'info', 'replication').catch(() => '');
          const synced = ['master_link_status:up', 'master_sync_in_progress:0'];
          if (replication.includes('role:slave') && !synced.every((s) => replication.includes(s))) {
            return false;
          }
        }
        const first = running[0];
        if (!first) return false;
        const ranges = mastersBySlot(await cli(first.port, 'cluster', 'nodes'));
        return sum(ranges.map(({ from, to }) => to - from + 1)) === 16_384;
      },
      { timeoutMs, intervalMs: 200 },
    );
  };

  const stop = async () => {
    await Promise.allSettled(nodes.map((node) => node.stop('SIGTERM', 3000)));
    if (ownDir) rmSync(root, { recursive: true, force: true });
  };

  try {
    await Promise.all(nodes.map((node) => node.start()));
    const create = ['--cluster', 'create', ...addresses];
    const replicas = ['--cluster-replicas', String(replicasPerMaster), '--cluster-yes'];
    await run(redisCli, [...create, ...replicas], { timeout: 60_000 });
    await waitUntilHealthy();
  } catch (error) {
    await stop();
    throw error;
  }

  /** The node that owns a key's slot now (asks the cluster; follows failovers). */
  const ownerOf = async (key: string) => {
    const alive = nodes.find((node) => node.isRunning);
    if (!alive) throw new Error('No Redis Cluster node is running');
    const slot = Number(await cli(alive.port, 'cluster', 'keyslot', key));
    const range = mastersBySlot(await cli(alive.port, 'cluster', 'nodes')).find(
      (candidate) => slot >= candidate.from && slot <= candidate.to,
    );
    const owner = nodes.find((node) => node.port === range?.port);
    if (!owner) throw new Error(`No master serves slot ${slot} right now`);
    return owner;
  };

  /** The replicas of a master, as the master itself lists them. */
  const replicasOf = async (master: Service) => {
    const id = await cli(master.port, 'cluster', 'myid');
    const ports = parseNodes(await cli(master.port, 'cluster', 'nodes'))
      .filter((node) => node.flags.includes('slave') && node.master === id)
      .map((node) => node.port);
    return nodes.filter((node) => ports.includes(node.port));
  };

  /**
   * Moves the slot of `key` to another master the way an operator reshards: `SETSLOT … IMPORTING`
   * on the target, `MIGRATING` on the owner, `MIGRATE` of its keys, then `SETSLOT … NODE` on
   * every master. Returns the old owner and the new one.
   */
  const moveSlot = async (key: string) => {
    const from = await ownerOf(key);
    const slot = await cli(from.port, 'cluster', 'keyslot', key);
    const masters = mastersBySlot(await cli(from.port, 'cluster', 'nodes')).map(({ port }) => port);
    const to = nodes.find((node) => node !== from && masters.includes(node.port));
    if (!to) throw new Error('No other master to move a slot to');
    const fromId = await cli(from.port, 'cluster', 'myid');
    const toId = await cli(to.port, 'cluster', 'myid');
    await cli(to.port, 'cluster', 'setslot', slot, 'importing', fromId);
    await cli(from.port, 'cluster', 'setslot', slot, 'migrating', toId);
    for (let batch = 0; batch < 1000; batch++) {
      const keys = (await cli(from.port, 'cluster', 'getkeysinslot', slot, '100'))
        .split('\n')
        .filter((name) => name.length > 0);
      if (keys.length === 0) break;
      // MIGRATE host port "" db timeout KEYS key…: a batch of keys at once.
      const migrate = ['migrate', '127.0.0.1', String(to.port), '', '0', '5000', 'keys'];
      const moved = await cli(from.port, ...migrate, ...keys);
      if (moved !== 'OK' && moved !== 'NOKEY') throw new Error(`MIGRATE said ${moved}`);
    }
    const others = masters.filter((port) => port !== to.port && port !== from.port);
    for (const port of [to.port, from.port, ...others]) {
      await cli(port, 'cluster', 'setslot', slot, 'node', toId);
    }
    return { from, to };
  };

  return {
    /** `start()` runs a node again on its port and folder, rejoining from its nodes.conf. */
    nodes: nodes as readonly Service[],
    /** The seed list for `REDIS_CLUSTER_NODES`: every node, `127.0.0.1:port,…`. */
    seeds: addresses.join(','),
    cli,
    ownerOf,
    replicasOf,
    moveSlot,
    waitUntilHealthy,
    stop,
  };
}

export type RedisCluster = Awaited<ReturnType<typeof startRedisCluster>>;
