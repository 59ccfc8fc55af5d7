/**
 * The compose file's `redis-cluster` profile for real: `--profile redis-cluster up --build
 * nginx-cluster` under a project name of its own brings up six Redis nodes, the job that makes
 * them a cluster (3 masters + 3 replicas), three replicas with REDIS_CLUSTER_NODES and an nginx
 * in front; then a message goes through it. Always ends with `down -v`. Needs a Docker engine:
 * `npm run test:compose`.
 */
import { FrameType } from '@taco/protocol';
import { freePorts } from '@taco/harness';
import { credentials, isLive, join, type RawClient } from '../test/support/chat';
import { ComposeProject } from '../test/support/compose';
import { docker, uniqueProjectName } from '../test/support/docker';

const PROFILE = ['--profile', 'redis-cluster'];
const NODES = ['1', '2', '3', '4', '5', '6'].map((n) => `redis-node-${n}`);

describe('docker-compose profile redis-cluster: a 3+3 Redis Cluster, api ×3, nginx', () => {
  const project = uniqueProjectName('taco-ci-cluster');
  let stack: ComposeProject | undefined;
  let baseUrl = '';
  const clients: RawClient[] = [];

  const compose = (): ComposeProject => {
    if (!stack) throw new Error('the stack did not start');
    return stack;
  };

  beforeAll(async () => {
    const [port] = await freePorts(1);
    stack = new ComposeProject(project, {
      TACO_CLUSTER_PORT: String(port),
      TACO_IMAGE_TAG: project,
      REDIS_WAIT_REPLICAS: '1',
      LOG_LEVEL: 'info',
    });
    baseUrl = `http://127.0.0.1:${port}`;
    await stack.run([...PROFILE, 'up', '-d', '--build', 'nginx-cluster'], { timeoutMs: 600_000 });
    await stack.waitHealthy(
      { 'api-cluster': 3, 'nginx-cluster': 1 },
      { timeoutMs: 180_000, intervalMs: 1000 },
    );
  }, 800_000);

  afterAll(async () => {
    for (const client of clients) client.socket.terminate();
    if (!stack) return;
    await stack.tearDown(PROFILE);
  }, 200_000);

  it('makes the six nodes one cluster of 3 masters with a replica each, and starts nothing of the plain stack', async () => {
    for (const service of NODES) expect(await compose().running(service)).toHaveLength(1);
    const [node] = await compose().ids('redis-node-1');
    const { stdout: info } = await docker(['exec', node ?? '', 'redis-cli', 'cluster', 'info'], {
      timeoutMs: 30_000,
    });
    expect(info).toContain('cluster_state:ok');
    expect(info).toContain('cluster_size:3');
    expect(info).toContain('cluster_known_nodes:6');
    // The job that created the cluster ran once, and succeeded.
    const { stdout: init } = await docker(
      [
        'ps',
        '-a',
        '--filter',
        `label=com.docker.compose.project=${project}`,
        '--filter',
        'label=com.docker.compose.service=redis-cluster-init',
        '--format',
        '{{.Status}}',
      ],
      { timeoutMs: 30_000 },
    );
    expect(init.trim()).toMatch(/^Exited \(0\)/);
    for (const service of ['redis', 'api', 'nginx']) {
      expect(await compose().ids(service)).toEqual([]);
    }
  });

  it('carries a message through nginx and the replicas on the cluster, acknowledged once a Redis replica holds it', async () => {
    const room = `sharded-${project.slice(-6)}`;
    const ann = await join(baseUrl, room, 'ann', await credentials(baseUrl, room, 'ann'));
    const bob = await join(baseUrl, room, 'bob', await credentials(baseUrl, room, 'bob'));
    clients.push(ann, bob);
    ann.send({ type: FrameType.Message, body: 'through the cluster', client_id: 'c1' });
    expect(await ann.next(isLive, 10_000)).toMatchObject({
      sender: 'ann',
      body: 'through the cluster',
      client_id: 'c1',
    });
    expect(await bob.next(isLive, 10_000)).toMatchObject({ body: 'through the cluster', seq: 1 });
  });
});
