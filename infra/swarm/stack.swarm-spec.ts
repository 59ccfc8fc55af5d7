/**
 * The Swarm stack for real: images built by `docker-compose build`, `infra/swarm/stack.yml`
 * deployed with `docker stack deploy --resolve-image never` under a stack name of its own, then,
 * with chat traffic through nginx all along: a forced rolling update of the api, a task killed
 * with SIGKILL, scaling to 5 and back to 3, and an update that can never become healthy, which
 * Swarm must roll back by itself. Always removes the stack, and leaves the swarm if it created
 * it. Needs a Docker engine: `npm run test:swarm` (never part of `npm test`).
 */
import { join } from 'node:path';
import { ApiPath, SHARED_KEYS } from '@taco/protocol';
import { freePorts, sleep, waitFor } from '@taco/harness';
import { block, ComposeProject, composeFileConfig, mapping } from '../test/support/compose';
import {
  docker,
  keepFigures,
  removeImages,
  seconds,
  TEST_CLIENT_LIMITS as LIMITS,
  uniqueProjectName,
} from '../test/support/docker';
import {
  expectNothingLost,
  MIN_READY_PERCENT,
  observeTraffic,
  summary,
  TRAFFIC,
  type TrafficOptions,
} from './test/chat-traffic';
import {
  ARTIFACTS,
  ensureSwarm,
  freeSubnet,
  REPLICAS,
  SCALED,
  stackFileConfig,
  SwarmStack,
  type SwarmSetup,
  targets,
  undoSwarm,
  waitStack,
} from './test/swarm-stack';

const figures: Record<string, unknown> = {};

describe('Docker Swarm stack: rolling updates that lose nothing', () => {
  const name = uniqueProjectName('taco-swarm');
  const suffix = name.slice(-6);
  let stack: SwarmStack | undefined;
  let setup: SwarmSetup = { created: false, createdGatewayBridge: false };
  let baseUrl = '';

  const swarm = (): SwarmStack => {
    if (!stack) throw new Error('the stack was not deployed');
    return stack;
  };

  /** `chatThrough` nginx, and what nginx's access log shows for the same time. */
  const underTraffic = (options: TrafficOptions, during: () => Promise<void>) =>
    observeTraffic(swarm(), baseUrl, options, during);

  beforeAll(async () => {
    const [port] = await freePorts(1);
    setup = await ensureSwarm();
    figures.stack = name;
    figures.createdSwarm = setup.created;
    const variables = {
      ...LIMITS,
      TACO_PORT: String(port),
      // Images of this run's own, built by compose under the same tag the stack file names.
      TACO_IMAGE_TAG: name,
      TACO_SWARM_SUBNET: await freeSubnet(),
      // No secret: the replicas must agree on the one generated in Redis.
      JWT_SECRET: '',
      HISTORY_MAX: '5000',
      LOG_LEVEL: 'info',
    };
    figures.subnet = variables.TACO_SWARM_SUBNET;
    baseUrl = `http://127.0.0.1:${port}`;

    const builtAt = Date.now();
    await new ComposeProject(name, variables).run(['build', 'api', 'nginx'], {
      timeoutMs: 900_000,
      env: { DOCKER_BUILDKIT: process.env.DOCKER_BUILDKIT ?? '0' },
    });
    figures.buildSeconds = seconds(Date.now() - builtAt);

    const deployedAt = Date.now();
    stack = new SwarmStack(name, variables);
    await stack.deploy();
    await waitStack(stack, baseUrl, REPLICAS);
    figures.healthySeconds = seconds(Date.now() - deployedAt);
  }, 1_200_000);

  afterAll(async () => {
    if (stack) {
      await stack.saveLogs(join(ARTIFACTS, 'swarm.log'));
      const removedAt = Date.now();
      const problems = await stack.remove();
      figures.removeSeconds = seconds(Date.now() - removedAt);
      if (problems.length > 0) {
        figures.removeProblems = problems;
        process.stderr.write(`stack rm: ${problems.join('\n')}\n`);
      }
      await removeImages(name);
    }
    // Only a swarm this run created is left (with the bridge that came with it).
    const swarmProblems = await undoSwarm(setup);
    if (setup.created) figures.leftSwarm = swarmProblems.length === 0;
    if (swarmProblems.length > 0) process.stderr.write(`${swarmProblems.join('\n')}\n`);
    keepFigures(join(ARTIFACTS, 'figures.json'), 'swarm', figures);
  }, 300_000);

  it('is the compose stack’s settings and images, on dnsrr, host-mode nginx and one trusted subnet', async () => {
    // No variable set: the file works as it is, and matches docker-compose.yml.
    const clean = { PATH: process.env.PATH, HOME: process.env.HOME };
    const { stdout: stackConfig } = await stackFileConfig(clean);
    const { stdout: composeConfig } = await composeFileConfig(clean);
    const stackApi = mapping(block(stackConfig, ['services', 'api', 'environment']));
    const composeApi = mapping(block(composeConfig, ['services', 'api', 'environment']));
    const subnet = block(stackConfig, ['networks', 'taco', 'ipam', 'config'])
      .join('\n')
      .match(/subnet: (\S+)/)?.[1];
    expect(subnet).toBe('10.231.0.0/24');
    expect(Object.fromEntries(stackApi)).toEqual({
      ...Object.fromEntries(composeApi),
      TRUST_PROXY: subnet,
    });
    for (const service of ['redis', 'api', 'nginx']) {
      const spec = block(stackConfig, ['services', service]);
      expect([
        service,
        mapping(block(stackConfig, ['services', service, 'deploy'])).get('endpoint_mode'),
      ]).toEqual([service, 'dnsrr']);
      const image = mapping(spec).get('image');
      expect([service, image]).toEqual([
        service,
        mapping(block(composeConfig, ['services', service])).get('image'),
      ]);
    }
    expect(block(stackConfig, ['services', 'nginx', 'ports']).join('\n')).toMatch(/mode: host/);
    expect(block(stackConfig, ['services', 'nginx', 'ports']).join('\n')).toMatch(
      /published: 8080/,
    );

    // A task that never becomes ready fails within the update's monitoring window.
    const duration = (text = '') => Number(/^(\d+)s$/.exec(text)?.[1] ?? Number.NaN);
    const health = mapping(block(stackConfig, ['services', 'api', 'healthcheck']));
    const update = mapping(block(stackConfig, ['services', 'api', 'deploy', 'update_config']));
    const unhealthyAfter =
      duration(health.get('start_period')) +
      duration(health.get('interval')) * Number(health.get('retries'));
    expect(duration(update.get('monitor'))).toBeGreaterThan(unhealthyAfter);
    expect(Object.fromEntries(update)).toMatchObject({
      parallelism: '1',
      order: 'start-first',
      failure_action: 'rollback',
    });
    // Above the api's drain (3 s) and the server's close.
    expect(
      duration(mapping(block(stackConfig, ['services', 'api'])).get('stop_grace_period')),
    ).toBeGreaterThan(3);
    figures.unhealthyAfterSeconds = unhealthyAfter;

    // One TACO_IMAGE_TAG (and TACO_REGISTRY) names the same images in both files; one
    // TACO_SWARM_SUBNET sets the network and what the replicas trust.
    const operator = {
      ...clean,
      TACO_IMAGE_TAG: 'run-9',
      TACO_REGISTRY: 'registry.example.com:5000/',
      TACO_SWARM_SUBNET: '10.99.0.0/24',
      TACO_PORT: '9000',
    };
    const { stdout: stackSet } = await stackFileConfig(operator);
    const { stdout: composeSet } = await composeFileConfig(operator);
    for (const service of ['api', 'nginx']) {
      const image = mapping(block(stackSet, ['services', service])).get('image');
      expect(image).toBe(`registry.example.com:5000/taco-chat-${service}:run-9`);
      expect(mapping(block(composeSet, ['services', service])).get('image')).toBe(image);
    }
    expect(mapping(block(stackSet, ['services', 'api', 'environment'])).get('TRUST_PROXY')).toBe(
      '10.99.0.0/24',
    );
    expect(block(stackSet, ['networks', 'taco', 'ipam', 'config']).join('\n')).toMatch(
      /subnet: 10\.99\.0\.0\/24/,
    );
    expect(block(stackSet, ['services', 'nginx', 'ports']).join('\n')).toMatch(/published: 9000/);
  });

  it('serves the web client on TACO_PORT, and the replicas see the client’s address, not nginx’s', async () => {
    const page = await fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(5000) });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const room = `welcome-${suffix}`;
    const response = await fetch(`${baseUrl}${ApiPath.roomCredentials(room)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sender_id: 'alice' }),
      signal: AbortSignal.timeout(5000),
    });
    expect(response.status).toBe(200);
    // The per-IP credentials limit is kept in Redis under the client's address as the api found
    // it: nginx's X-Forwarded-For is trusted only from the stack network's subnet (TRUST_PROXY),
    // so the address is the one nginx saw, never an nginx task's own.
    const [redis] = await swarm().containers('redis');
    if (!redis) throw new Error('no redis container');
    // rate-limiter-flexible appends the address to the budget's prefix (`<prefix>:<address>`).
    const prefix = `${SHARED_KEYS.rateLimitPrefix('credentials')}:`;
    const { stdout } = await docker(
      ['exec', redis.id, 'redis-cli', '--scan', '--pattern', `${prefix}*`],
      { timeoutMs: 30_000 },
    );
    const addresses = stdout
      .split('\n')
      .filter((key) => key.length > 0)
      .map((key) => key.slice(prefix.length));
    const subnetPrefix = String(figures.subnet).replace(/0\/24$/, '');
    figures.clientAddresses = addresses;
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.filter((address) => address.startsWith(subnetPrefix))).toEqual([]);
  });

  it('rolls the api over (`service update --force`) under chat traffic: nothing lost or doubled, readiness ≥ 95 %', async () => {
    const before = new Set((await swarm().containers('api')).map((c) => c.taskId));
    let replacedSeconds = 0;
    const traffic = await underTraffic({ ...TRAFFIC, prefix: `roll-${suffix}` }, async () => {
      await sleep(3000);
      const startedAt = Date.now();
      await swarm().serviceCommand(['update', '--force', '--detach'], 'api');
      await waitFor(
        'every api task replaced and healthy',
        async () => {
          const now = await swarm().containers('api');
          return (
            now.length === REPLICAS &&
            now.every((c) => !before.has(c.taskId) && c.health === 'healthy')
          );
        },
        { timeoutMs: 240_000, intervalMs: 1000 },
      );
      replacedSeconds = seconds(Date.now() - startedAt);
      await sleep(3000);
    });
    const status = await swarm().waitUpdate(
      'api',
      ['completed', 'paused', 'rollback_completed', 'rollback_paused'],
      180_000,
    );
    figures.rollingUpdate = {
      ...summary('rolling update', traffic),
      replacedSeconds,
      state: status.State,
    };
    expect(status.State).toBe('completed');
    // Every old task drained: every member was moved at least once, and came back.
    expect(traffic.moved).toBe(traffic.members);
    expectNothingLost(traffic);
    expect(traffic.readiness.percent).toBeGreaterThanOrEqual(MIN_READY_PERCENT);
  });

  it('replaces a task whose container is killed with SIGKILL, and its members lose nothing', async () => {
    const [victim] = await swarm().containers('api');
    if (!victim) throw new Error('no api container');
    let replacedSeconds = 0;
    const traffic = await underTraffic({ ...TRAFFIC, prefix: `kill-${suffix}` }, async () => {
      await sleep(2000);
      const killedAt = Date.now();
      await docker(['kill', '-s', 'KILL', victim.id], { timeoutMs: 30_000 });
      await waitFor(
        'a new healthy api task in place of the killed one',
        async () => {
          const now = await swarm().containers('api');
          return (
            now.length === REPLICAS &&
            !now.some((c) => c.id === victim.id) &&
            now.every((c) => c.health === 'healthy')
          );
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      );
      replacedSeconds = seconds(Date.now() - killedAt);
      await sleep(2000);
    });
    const killed = (await swarm().tasks('api')).find((task) => task.id === victim.taskId);
    figures.kill = { ...summary('SIGKILL', traffic), replacedSeconds, killedTask: killed };
    expect(killed?.desired).toBe('Shutdown');
    expect(killed?.current).toMatch(/^Failed/);
    expect(traffic.moved).toBeGreaterThan(0);
    expectNothingLost(traffic);
  });

  it(`scales to ${SCALED} tasks and back to ${REPLICAS} under traffic; every task answers as a target`, async () => {
    const seen: Record<string, unknown> = {};
    const scale = async (count: number) => {
      const at = Date.now();
      await docker(['service', 'scale', '--detach', `${swarm().service('api')}=${count}`]);
      await swarm().waitHealthy('api', count, 180_000);
      // Swarm adds a task to DNS once it is healthy and drops it before stopping it.
      let found: Awaited<ReturnType<typeof targets>> = [];
      await waitFor(
        `${count} api targets answering`,
        async () => {
          found = await targets(swarm());
          return found.length === count && found.every((t) => t.ready === 200 && t.metrics);
        },
        { timeoutMs: 30_000, intervalMs: 1000 },
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}: ${JSON.stringify(found)}`);
      });
      seen[`targets${count}`] = found.map((t) => t.address);
      seen[`scaleTo${count}Seconds`] = seconds(Date.now() - at);
    };
    await scale(SCALED);
    // nginx looks `api` up again every second; then least_conn spreads the members over all five.
    await sleep(3000);
    const traffic = await underTraffic({ ...TRAFFIC, prefix: `scale-${suffix}` }, async () => {
      await sleep(2000);
      await scale(REPLICAS);
      await sleep(2000);
    });
    figures.scale = { ...summary(`scale ${SCALED}→${REPLICAS}`, traffic), ...seen };
    // The removed tasks drained their members (1012), who came back on the others.
    expect(traffic.moved).toBeGreaterThan(0);
    expectNothingLost(traffic);
  });

  it('rolls back, by itself, an update whose tasks never become ready (REDIS_URL pointing nowhere)', async () => {
    const envBefore = await swarm().inspect('api', '{{json .Spec.TaskTemplate.ContainerSpec.Env}}');
    // Every task Swarm knows of so far (it keeps a few old ones per slot): the new ones are this update's.
    const before = new Set((await swarm().tasks('api')).map((task) => task.id));
    let state = '';
    let tookSeconds = 0;
    const traffic = await underTraffic({ ...TRAFFIC, prefix: `broken-${suffix}` }, async () => {
      await sleep(2000);
      const startedAt = Date.now();
      await swarm().serviceCommand(
        ['update', '--detach', '--env-add', 'REDIS_URL=redis://nowhere.invalid:6379'],
        'api',
      );
      const status = await swarm().waitUpdate(
        'api',
        ['completed', 'paused', 'rollback_completed', 'rollback_paused'],
        300_000,
      );
      state = status.State ?? '';
      tookSeconds = seconds(Date.now() - startedAt);
      figures.brokenUpdateMessage = status.Message;
    });
    const tasks = await swarm().tasks('api');
    const failed = tasks.filter(
      (task) => !before.has(task.id) && /^(Failed|Shutdown)/.test(task.current),
    );
    figures.brokenUpdate = {
      ...summary('broken update, rolled back', traffic),
      state,
      tookSeconds,
      failedTasks: failed.map((task) => `${task.current} ${task.error}`.trim()),
    };
    expect(state).toBe('rollback_completed');
    expect(await swarm().inspect('api', '{{json .Spec.TaskTemplate.ContainerSpec.Env}}')).toBe(
      envBefore,
    );
    expect(failed.length).toBeGreaterThan(0);
    await swarm().waitHealthy('api', REPLICAS, 60_000);
    // The broken task never joined `api`: nothing lost, readiness untouched.
    expectNothingLost(traffic);
    expect(traffic.readiness.percent).toBeGreaterThanOrEqual(MIN_READY_PERCENT);

    // And the chat still works afterwards.
    const after = await underTraffic({ ...TRAFFIC, rooms: 1, prefix: `after-${suffix}` }, () =>
      sleep(3000),
    );
    figures.afterRollback = summary('after the rollback', after);
    expectNothingLost(after);
    expect(after.readiness.percent).toBe(100);
  });
});
