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
import { baseEnvironment, redisServerArgs } from './environment';
import { type Exit, findExecutable, ManagedProcess, type OutputMode } from './managed-process';
import { freePorts, redisPing, waitFor } from './wait';

const run = promisify(execFile);

export interface RedisClusterOptions {
  /** Masters, each owning a third (or so) of the 16,384 slots (default 3). */
  masters?: number;
  /** Replicas per master (default 1). */
  replicasPerMaster?: number;
  /** How long a master may be silent before its replica takes over (default 2000 ms). */
  nodeTimeoutMs?: number;
  /** A folder to hold the nodes' folders; a fresh temporary one (removed on stop) by default. */
  dir?: string;
  output?: OutputMode;
  /** Bound on each start-up wait (default 30 s). */
  startTimeoutMs?: number;
}

export interface RedisClusterNode {
  readonly port: number;
  /** `127.0.0.1:port`. */
  readonly address: string;
  readonly dir: string;
  readonly isRunning: boolean;
  readonly exited: Promise<Exit>;
  readonly lines: readonly string[];
  kill(signal?: NodeJS.Signals): void;
  stop(signal?: NodeJS.Signals): Promise<Exit>;
  /** Starts the node again on its port and folder: it rejoins the cluster from its nodes.conf. */
  start(): Promise<void>;
}

export interface RedisCluster {
  readonly nodes: readonly RedisClusterNode[];
  /** The seed list for `REDIS_CLUSTER_NODES`: every node, `127.0.0.1:port,…`. */
  readonly seeds: string;
  /** `redis-cli -p port …` against one node; resolves with its output, trimmed. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The node that owns a key's slot now (asks the cluster; follows failovers). */
  ownerOf(key: string): Promise<RedisClusterNode>;
  /** The replicas of a master, as the master itself lists them. */
  replicasOf(master: RedisClusterNode): Promise<RedisClusterNode[]>;
  /**
   * Moves the slot of `key` to another master the way an operator reshards: `SETSLOT … IMPORTING`
   * on the target, `MIGRATING` on the owner, `MIGRATE` of its keys, then `SETSLOT … NODE` on
   * every master. Returns the old owner and the new one.
   */
  moveSlot(key: string): Promise<{ from: RedisClusterNode; to: RedisClusterNode }>;
  /** Waits until every running node reports `cluster_state:ok` and every slot has a master. */
  waitUntilHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Parses `CLUSTER NODES`: the master that serves each slot range, by port. */
function mastersBySlot(clusterNodes: string): { port: number; from: number; to: number }[] {
  const ranges: { port: number; from: number; to: number }[] = [];
  for (const line of clusterNodes.split('\n')) {
    const [, address = '', flags = '', , , , , state = '', ...slots] = line.trim().split(' ');
    if (!flags.split(',').includes('master') || flags.includes('fail') || state !== 'connected') {
      continue;
    }
    const port = Number(address.split('@', 1)[0]?.split(':')[1]);
    for (const slot of slots) {
      if (slot.startsWith('[')) continue; // a slot being migrated
      const [from = '', to = from] = slot.split('-');
      ranges.push({ port, from: Number(from), to: Number(to) });
    }
  }
  return ranges;
}

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  if (!Number.isInteger(masters) || masters < 3) {
    throw new Error(`A Redis Cluster needs at least 3 masters (got ${masters})`);
  }
  const redisServer = findExecutable('redis-server');
  const redisCli = findExecutable('redis-cli');
  for (const [name, path] of [
    ['redis-server', redisServer],
    ['redis-cli', redisCli],
  ] as const) {
    if (path === name) throw new Error(`${name} is not installed (Debian: apt-get install redis)`);
  }
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const ownDir = options.dir === undefined;
  const root = options.dir ?? mkdtempSync(join(tmpdir(), 'taco-redis-cluster-'));
  const ports = await freePorts(masters * (1 + replicasPerMaster));
  const processes = ports.map((port) => {
    const dir = join(root, String(port));
    mkdirSync(dir, { recursive: true });
    return new ManagedProcess({
      name: `redis-${port}`,
      command: redisServer,
      args: [
        ...redisServerArgs(port, dir),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(options.nodeTimeoutMs ?? 2000),
        // A replica that lost its master for a while may still take over (tests kill masters).
        '--cluster-replica-validity-factor',
        '0',
      ],
      cwd: dir,
      env: baseEnvironment(),
      output: options.output ?? 'quiet',
    });
  });

  const cli = async (port: number, ...args: string[]) => {
    const { stdout } = await run(redisCli, ['-h', '127.0.0.1', '-p', String(port), ...args], {
      timeout: 10_000,
    });
    return stdout.trim();
  };

  const startNode = async (child: ManagedProcess, port: number) => {
    child.start();
    await waitFor(`redis cluster node on port ${port}`, () => redisPing(port), {
      timeoutMs: startTimeoutMs,
      abort: () => (child.isRunning ? undefined : `exited:\n${child.lines.slice(-20).join('\n')}`),
    });
  };

  const nodes: RedisClusterNode[] = processes.map((child, index) => {
    const port = ports[index] as number;
    return {
      port,
      address: `127.0.0.1:${port}`,
      dir: join(root, String(port)),
      get isRunning() {
        return child.isRunning;
      },
      get exited() {
        return child.exited;
      },
      lines: child.lines,
      kill: (signal: NodeJS.Signals = 'SIGKILL') => child.kill(signal),
      stop: (signal: NodeJS.Signals = 'SIGTERM') => child.stop(signal),
      start: () => startNode(child, port),
    };
  });

  const waitUntilHealthy = async (timeoutMs = startTimeoutMs) => {
    await waitFor(
      'redis cluster healthy',
      async () => {
        const running = nodes.filter((node) => node.isRunning);
        for (const node of running) {
          const info = await cli(node.port, 'cluster', 'info').catch(() => '');
          if (!info.includes('cluster_state:ok')) return false;
          // A replica counts once it holds its master's data (initial sync done, link up).
          const replication = await cli(node.port, 'info', 'replication').catch(() => '');
          if (
            replication.includes('role:slave') &&
            (!replication.includes('master_link_status:up') ||
              !replication.includes('master_sync_in_progress:0'))
          ) {
            return false;
          }
        }
        const first = running[0];
        if (!first) return false;
        const covered = mastersBySlot(await cli(first.port, 'cluster', 'nodes')).reduce(
          (sum, range) => sum + range.to - range.from + 1,
          0,
        );
        return covered === 16_384;
      },
      { timeoutMs, intervalMs: 200 },
    );
  };

  const stop = async () => {
    await Promise.allSettled(processes.map((child) => child.stop('SIGTERM', 3000)));
    if (ownDir) rmSync(root, { recursive: true, force: true });
  };

  try {
    await Promise.all(processes.map((child, index) => startNode(child, ports[index] as number)));
    await run(
      redisCli,
      [
        '--cluster',
        'create',
        ...nodes.map((node) => node.address),
        '--cluster-replicas',
        String(replicasPerMaster),
        '--cluster-yes',
      ],
      { timeout: 60_000 },
    );
    await waitUntilHealthy();
  } catch (error) {
    await stop();
    throw error;
  }

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

  const replicasOf = async (master: RedisClusterNode) => {
    const id = await cli(master.port, 'cluster', 'myid');
    const ports = (await cli(master.port, 'cluster', 'nodes'))
      .split('\n')
      .map((line) => line.trim().split(' '))
      .filter(([, , flags = '', masterId]) => flags.split(',').includes('slave') && masterId === id)
      .map(([, address = '']) => Number(address.split('@', 1)[0]?.split(':')[1]));
    return nodes.filter((node) => ports.includes(node.port));
  };

  const moveSlot = async (key: string) => {
    const from = await ownerOf(key);
    const slot = await cli(from.port, 'cluster', 'keyslot', key);
    const masters = mastersBySlot(await cli(from.port, 'cluster', 'nodes')).map(({ port }) => port);
    const to = nodes.find((node) => node !== from && masters.includes(node.port));
    if (!to) throw new Error('No other master to move a slot to');
    const [fromId, toId] = await Promise.all(
      [from, to].map((node) => cli(node.port, 'cluster', 'myid')),
    );
    await cli(to.port, 'cluster', 'setslot', slot, 'importing', fromId as string);
    await cli(from.port, 'cluster', 'setslot', slot, 'migrating', toId as string);
    for (let batch = 0; batch < 1000; batch++) {
      const keys = (await cli(from.port, 'cluster', 'getkeysinslot', slot, '100'))
        .split('\n')
        .filter((name) => name.length > 0);
      if (keys.length === 0) break;
      const moved = await cli(
        from.port,
        'migrate',
        '127.0.0.1',
        String(to.port),
        '',
        '0',
        '5000',
        'keys',
        ...keys,
      );
      if (moved !== 'OK' && moved !== 'NOKEY') throw new Error(`MIGRATE said ${moved}`);
    }
    for (const port of [
      to.port,
      from.port,
      ...masters.filter((p) => p !== to.port && p !== from.port),
    ]) {
      await cli(port, 'cluster', 'setslot', slot, 'node', toId as string);
    }
    return { from, to };
  };

  return {
    nodes,
    seeds: nodes.map((node) => node.address).join(','),
    cli,
    ownerOf,
    replicasOf,
    moveSlot,
    waitUntilHealthy,
    stop,
  };
}
