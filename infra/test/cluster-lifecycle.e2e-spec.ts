import { existsSync } from 'node:fs';
import { CloseCode, FrameType } from '@taco/protocol';
import { type Cluster, httpStatus, isListening, startCluster, waitFor } from '@taco/harness';
import { credentials, isLive, join } from './support/chat';

/** Whether a process with this id exists (signal 0 only checks). */
function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const SECURITY_HEADERS = [
  'content-security-policy',
  'x-content-type-options',
  'x-frame-options',
  'referrer-policy',
  'cross-origin-opener-policy',
  'permissions-policy',
];

describe('cluster runner', () => {
  let cluster: Cluster | undefined;

  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('starts redis, two replicas and nginx, and stops them all, leaving nothing behind', async () => {
    cluster = await startCluster({ replicas: 2 });
    const { replicas, redis, nginx, workDir, url } = cluster;
    const pids = [nginx.pid, redis?.pid, ...replicas.map((replica) => replica.pid)];
    const ports = [nginx.port, redis?.port ?? 0, ...replicas.map((replica) => replica.port)];
    expect(pids.every(alive)).toBe(true);
    expect(new Set(ports).size).toBe(4);
    for (const replica of replicas) {
      expect(await httpStatus(`${replica.url}/api/health/ready`)).toBe(200);
    }
    expect(await httpStatus(`${url}/api/health/ready`)).toBe(200);
    expect(await httpStatus(`${url}/r/teal-otter`)).toBe(200);

    // Static pages from nginx carry the same security headers as the api's own answers.
    const page = await fetch(`${url}/r/teal-otter`);
    const api = await fetch(`${url}/api/health/live`);
    for (const name of SECURITY_HEADERS) {
      expect(page.headers.get(name)).not.toBeNull();
      expect(page.headers.get(name)).toBe(api.headers.get(name));
    }

    // A browser on the nginx port passes the api's same-host Origin check (Host keeps its port).
    const token = await credentials(url, 'teal-otter', 'alice');
    const client = await join(url, 'teal-otter', 'alice', token, { origin: url });
    expect(await client.close()).toMatchObject({ code: CloseCode.Normal });

    // A dead replica: nginx moves requests to the live one, and its error log (followed into
    // nginx's lines) names the failed connection.
    replicas[1]?.kill('SIGKILL');
    await replicas[1]?.exited;
    for (let i = 0; i < 4; i++) expect(await httpStatus(`${url}/api/health/live`)).toBe(200);
    await waitFor('the failed connection in the error log', () =>
      nginx.lines.some((line) => line.includes('connect() failed')),
    );

    await cluster.stop();
    cluster = undefined;
    expect(pids.some(alive)).toBe(false);
    for (const port of ports) expect(await isListening(port)).toBe(false);
    expect(existsSync(workDir)).toBe(false);
  });

  it('runs one embedded replica behind nginx without redis', async () => {
    cluster = await startCluster({ replicas: 1, redis: false });
    expect(cluster.redis).toBeNull();
    expect(cluster.replicas).toHaveLength(1);
    const token = await credentials(cluster.url, 'solo-room', 'bob');
    const client = await join(cluster.url, 'solo-room', 'bob', token);
    await client.close();
    const pid = cluster.replicas[0]?.pid;
    await cluster.stop();
    cluster = undefined;
    expect(alive(pid)).toBe(false);
  });

  it('runs the replicas on a Redis Cluster of 3 masters and 3 replicas with --redis-cluster, and tears it down', async () => {
    cluster = await startCluster({
      replicas: 2,
      redisCluster: true,
      env: { REDIS_WAIT_REPLICAS: '1' },
    });
    const { redisCluster, workDir, url } = cluster;
    expect(cluster.redis).toBeNull();
    expect(redisCluster?.nodes).toHaveLength(6);
    const nodePorts = redisCluster?.nodes.map((node) => node.port) ?? [];

    const room = 'sharded-room';
    const ann = await join(url, room, 'ann', await credentials(url, room, 'ann'));
    const bob = await join(url, room, 'bob', await credentials(url, room, 'bob'));
    ann.send({ type: FrameType.Message, body: 'through a shard', client_id: 'c1' });
    // Acknowledged once a Redis replica holds it (REDIS_WAIT_REPLICAS passed through).
    expect(await ann.next(isLive, 5000)).toMatchObject({
      body: 'through a shard',
      client_id: 'c1',
    });
    expect(await bob.next(isLive, 5000)).toMatchObject({ body: 'through a shard', seq: 1 });
    const owner = await redisCluster?.ownerOf(`chat:{${room}}:log`);
    expect(
      await redisCluster?.cli(owner?.port ?? 0, 'pubsub', 'shardnumsub', `chat:{${room}}`),
    ).toMatch(/\n[12]$/);
    await ann.close();
    await bob.close();

    await cluster.stop();
    cluster = undefined;
    expect(redisCluster?.nodes.some((node) => node.isRunning)).toBe(false);
    for (const port of nodePorts) expect(await isListening(port)).toBe(false);
    expect(existsSync(workDir)).toBe(false);
  }, 90_000);

  it('refuses several replicas without redis', async () => {
    await expect(startCluster({ replicas: 2, redis: false })).rejects.toThrow(/replicas: 1/);
  });
});
