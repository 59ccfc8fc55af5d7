import { existsSync } from 'node:fs';
import { type RedisCluster, startRedisCluster, waitFor } from '@taco/harness';

describe('The local Redis Cluster', () => {
  let cluster: RedisCluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
  });
  afterAll(() => cluster?.stop());

  it('runs 3 masters with a replica each, every slot served', async () => {
    expect(cluster.nodes).toHaveLength(6);
    expect(cluster.seeds.split(',')).toHaveLength(6);
    const nodes = await cluster.cli(cluster.nodes[0]!.port, 'cluster', 'nodes');
    const flags = nodes.split('\n').map((line) => line.split(' ')[2] ?? '');
    expect(flags.filter((flag) => flag.split(',').includes('master'))).toHaveLength(3);
    expect(flags.filter((flag) => flag.split(',').includes('slave'))).toHaveLength(3);
    const info = await cluster.cli(cluster.nodes[0]!.port, 'cluster', 'info');
    expect(info).toContain('cluster_slots_assigned:16384');
  });

  it('keeps a room under one hash tag on one shard, and its shard channel with it', async () => {
    const owner = await cluster.ownerOf('chat:{teal-otter}:log');
    expect(await cluster.ownerOf('chat:{teal-otter}:seq')).toBe(owner);
    expect(await cluster.cli(owner.port, 'set', 'chat:{teal-otter}:seq', '1')).toBe('OK');
    // A shard channel published on its owner reaches no one yet, but is accepted there.
    expect(await cluster.cli(owner.port, 'spublish', 'chat:{teal-otter}', 'hi')).toBe('0');
  });

  it('promotes the replica when a master dies, and takes the old master back as a replica', async () => {
    const owner = await cluster.ownerOf('chat:{failover-room}:log');
    await cluster.cli(owner.port, 'set', 'chat:{failover-room}:seq', '41');
    expect(await cluster.cli(owner.port, 'wait', '1', '2000')).toBe('1');
    owner.kill('SIGKILL');
    await owner.exited;
    await waitFor(
      'a new owner',
      async () => (await cluster.ownerOf('chat:{failover-room}:log').catch(() => owner)) !== owner,
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    const promoted = await cluster.ownerOf('chat:{failover-room}:log');
    expect(await cluster.cli(promoted.port, 'get', 'chat:{failover-room}:seq')).toBe('41');

    await owner.start();
    await cluster.waitUntilHealthy(20_000);
    const role = await cluster.cli(owner.port, 'role');
    expect(role.split('\n')[0]).toBe('slave');
  });

  it('stops every node and removes its folders', async () => {
    const dirs = cluster.nodes.map((node) => node.dir);
    await cluster.stop();
    expect(cluster.nodes.every((node) => !node.isRunning)).toBe(true);
    expect(dirs.some((dir) => existsSync(dir))).toBe(false);
  });
});
