import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@taco/harness';
import { block, mapping } from './support/compose';

const run = promisify(execFile);
const COMPOSE_FILE = join(REPO_ROOT, 'docker-compose.yml');
const SECRET = 'compose-test-secret-that-is-long-enough-0123456789';

/**
 * Every setting of protocol/README.md §9 that compose passes to the replicas, besides the
 * per-connection limits below. REDIS_CLUSTER_NODES and REDIS_WAIT_REPLICAS belong to the
 * redis-cluster profile's replicas (the plain stack's one Redis has no replica to wait for);
 * REPLICA_ID is left to each replica.
 */
const CONFIG_SETTINGS = [
  'PORT',
  'HOST',
  'REDIS_URL',
  'REDIS_WAIT_TIMEOUT_MS',
  'JWT_SECRET',
  'TOKEN_TTL',
  'HISTORY_MAX',
  'ROOM_TTL',
  'ALLOWED_ORIGINS',
  'TRUST_PROXY',
  'WEB_DIST',
  'LOG_LEVEL',
  'CREDENTIALS_PER_MINUTE',
  'CONNECTIONS_PER_IP',
  'DISAPPEAR_SHORTEST',
];
/** The per-connection limits the api reads too (protocol/README.md §7.2 and §9). */
const LIMIT_SETTINGS = [
  'MESSAGE_BURST',
  'MESSAGES_PER_SECOND',
  'TYPING_PER_SECOND',
  'HISTORY_REQUESTS_PER_10S',
];
/** Settings an operator may change through the environment (the rest are fixed by the topology). */
const PASSED_THROUGH: Record<string, string> = {
  JWT_SECRET: SECRET,
  TOKEN_TTL: '2h',
  HISTORY_MAX: '77',
  ROOM_TTL: '3d',
  ALLOWED_ORIGINS: 'https://chat.example.com',
  LOG_LEVEL: 'warn',
  REDIS_WAIT_TIMEOUT_MS: '1500',
  CREDENTIALS_PER_MINUTE: '31',
  CONNECTIONS_PER_IP: '101',
  MESSAGE_BURST: '11',
  MESSAGES_PER_SECOND: '3',
  TYPING_PER_SECOND: '4',
  HISTORY_REQUESTS_PER_10S: '6',
  DISAPPEAR_SHORTEST: '30m',
};

/** `docker-compose [args]` on the repository's compose file (v1.29 as CI installs it). */
function compose(args: string[], env: NodeJS.ProcessEnv = {}) {
  return run('docker-compose', ['-f', COMPOSE_FILE, ...args], {
    cwd: REPO_ROOT,
    // Nothing from the caller's environment but PATH: the file must work with no variable set.
    env: { PATH: process.env.PATH, ...env },
    timeout: 30_000,
  });
}

describe('docker-compose.yml', () => {
  it('is accepted by docker-compose config with no variable set, with the loadtest profile', async () => {
    const { stdout } = await compose(['--profile', 'loadtest', 'config']);
    const services = block(stdout, ['services'])
      .filter((line) => /^\S+:$/.test(line))
      .map((line) => line.slice(0, -1));
    // docker-compose 1.29 prints the services of every profile; v2 only the active ones.
    const profileOf = (service: string) =>
      block(stdout, ['services', service]).includes('profiles:')
        ? block(stdout, ['services', service, 'profiles']).join(',')
        : '';
    const optional = ['- redis-cluster', '- monitoring'];
    expect(services.filter((service) => !optional.includes(profileOf(service))).sort()).toEqual([
      'api',
      'k6',
      'nginx',
      'redis',
    ]);
    expect(services.filter((service) => profileOf(service) === '').sort()).toEqual([
      'api',
      'nginx',
      'redis',
    ]);
    const api = block(stdout, ['services', 'api']);
    // Only `scale`: docker-compose 1.29 refuses a service with deploy.replicas as well.
    expect(api).toContain('scale: 3');
    expect(stdout).not.toMatch(/replicas:/);
    expect(stdout).not.toMatch(/deploy:/);
    expect(block(stdout, ['services', 'nginx', 'ports']).join('\n')).toMatch(
      /published: 8080\s+target: 80/,
    );
    expect(block(stdout, ['services', 'k6', 'profiles'])).toEqual(['- loadtest']);
    expect(block(stdout, ['services', 'k6', 'command'])).toEqual([
      '- run',
      '- /scripts/k6/chat.js',
    ]);
    expect(mapping(block(stdout, ['services', 'k6', 'environment'])).get('BASE_URL')).toBe(
      'http://nginx',
    );
  });

  it('passes every setting of protocol/README.md §9 to the replicas, with defaults, and no secret by default', async () => {
    const { stdout } = await compose(['config']);
    const environment = mapping(block(stdout, ['services', 'api', 'environment']));
    for (const name of [...CONFIG_SETTINGS, ...LIMIT_SETTINGS]) {
      expect([name, environment.has(name)]).toEqual([name, true]);
    }
    for (const name of ['REDIS_CLUSTER_NODES', 'REDIS_WAIT_REPLICAS', 'REPLICA_ID']) {
      expect([name, environment.has(name)]).toEqual([name, false]);
    }
    expect(Object.fromEntries(environment)).toMatchObject({
      REDIS_URL: 'redis://redis:6379',
      PORT: '3000',
      HOST: '0.0.0.0',
      WEB_DIST: 'off',
      // Empty counts as unset: the replicas then share a secret generated in Redis.
      JWT_SECRET: '',
      ALLOWED_ORIGINS: '',
      TOKEN_TTL: '24h',
      HISTORY_MAX: '1000',
      ROOM_TTL: '7d',
      LOG_LEVEL: 'info',
      REDIS_WAIT_TIMEOUT_MS: '2000',
      CREDENTIALS_PER_MINUTE: '30',
      CONNECTIONS_PER_IP: '100',
      MESSAGE_BURST: '10',
      MESSAGES_PER_SECOND: '2',
      TYPING_PER_SECOND: '2',
      HISTORY_REQUESTS_PER_10S: '5',
    });
  });

  it('passes an operator’s values through to the replicas', async () => {
    const { stdout } = await compose(['config'], { ...PASSED_THROUGH, TACO_PORT: '9090' });
    const environment = mapping(block(stdout, ['services', 'api', 'environment']));
    expect(Object.fromEntries(environment)).toMatchObject(PASSED_THROUGH);
    expect(block(stdout, ['services', 'nginx', 'ports']).join('\n')).toMatch(
      /published: 9090\s+target: 80/,
    );
  });

  it('trusts nginx alone, by its service name, on a network with no fixed subnet', async () => {
    const { stdout } = await compose(['--profile', 'loadtest', 'config']);
    // The api looks `nginx` up on the compose network (and again every few seconds).
    expect(mapping(block(stdout, ['services', 'api', 'environment'])).get('TRUST_PROXY')).toBe(
      'nginx',
    );
    // No subnet or fixed address that could clash with a network of the user's.
    expect(stdout).not.toMatch(/subnet:|ipv4_address:|ip_range:/);
  });

  it('pins every image it pulls to a version, in the file and in the Dockerfiles', async () => {
    const { stdout } = await compose([
      '--profile',
      'loadtest',
      '--profile',
      'monitoring',
      'config',
    ]);
    const services = ['api', 'nginx', 'redis', 'k6', 'prometheus', 'redis-exporter'];
    const pulled: string[] = [];
    for (const service of services) {
      const lines = block(stdout, ['services', service]);
      const image = mapping(lines).get('image');
      if (lines.some((line) => line.startsWith('build:'))) continue; // built here
      expect(image).toBeDefined();
      pulled.push(image ?? '');
    }
    expect(pulled.sort()).toEqual([
      'oliver006/redis_exporter:v1.45.0',
      'prom/prometheus:v2.42.0',
      'redis:7.0.15-alpine',
    ]);
    // The two built here carry TACO_IMAGE_TAG (default latest), so two checkouts never share them,
    // and TACO_REGISTRY (default none) in front, to push them for a swarm of several machines.
    for (const [env, tag] of [
      [{}, 'latest'],
      [{ TACO_IMAGE_TAG: 'run-7' }, 'run-7'],
      [{ TACO_IMAGE_TAG: 'run-8', TACO_REGISTRY: 'registry.example.com:5000/' }, 'run-8'],
    ] as const) {
      const config = (await compose(['config'], env)).stdout;
      const registry = 'TACO_REGISTRY' in env ? env.TACO_REGISTRY : '';
      expect(mapping(block(config, ['services', 'api'])).get('image')).toBe(
        `${registry}taco-chat-api:${tag}`,
      );
      expect(mapping(block(config, ['services', 'nginx'])).get('image')).toBe(
        `${registry}taco-chat-nginx:${tag}`,
      );
    }
    const dockerDir = join(REPO_ROOT, 'infra', 'docker');
    const bases = readdirSync(dockerDir)
      .filter((file) => file.endsWith('.Dockerfile'))
      .flatMap((file) =>
        [...readFileSync(join(dockerDir, file), 'utf8').matchAll(/^FROM (\S+)/gm)].map(
          (match) => match[1] ?? '',
        ),
      );
    expect(bases.length).toBeGreaterThan(0);
    for (const image of bases)
      expect(image).toMatch(/^[a-z0-9/._-]+:\d+\.\d+\.\d+(-[a-z0-9.-]+)?$/);
  });

  it('runs the same replicas on a 3+3 Redis Cluster under the redis-cluster profile, apart from the plain stack', async () => {
    const { stdout } = await compose(['--profile', 'redis-cluster', 'config']);
    const nodes = ['1', '2', '3', '4', '5', '6'].map((n) => `redis-node-${n}`);
    const services = block(stdout, ['services'])
      .filter((line) => /^\S+:$/.test(line))
      .map((line) => line.slice(0, -1));
    expect(services).toEqual(
      expect.arrayContaining([...nodes, 'redis-cluster-init', 'api-cluster', 'nginx-cluster']),
    );
    for (const service of [...nodes, 'redis-cluster-init', 'api-cluster', 'nginx-cluster']) {
      expect([service, block(stdout, ['services', service, 'profiles'])]).toEqual([
        service,
        ['- redis-cluster'],
      ]);
      expect([service, block(stdout, ['services', service, 'networks'])[0]]).toEqual([
        service,
        expect.stringMatching(/^taco-cluster:/),
      ]);
    }
    for (const node of nodes) {
      expect(mapping(block(stdout, ['services', node])).get('image')).toBe('redis:7.0.15-alpine');
      const command = block(stdout, ['services', node, 'command']).join(' ');
      expect(command).toMatch(/- --cluster-enabled - "?yes"?/);
      expect(command).toContain(`- --cluster-announce-hostname - ${node}`);
    }
    const environment = mapping(block(stdout, ['services', 'api-cluster', 'environment']));
    expect(Object.fromEntries(environment)).toMatchObject({
      REDIS_URL: '',
      REDIS_CLUSTER_NODES: nodes.map((node) => `${node}:6379`).join(','),
      REDIS_WAIT_REPLICAS: '0',
      REDIS_WAIT_TIMEOUT_MS: '2000',
      TRUST_PROXY: 'nginx',
    });
    expect(mapping(block(stdout, ['services', 'api-cluster'])).get('scale')).toBe('3');
    expect(block(stdout, ['services', 'nginx-cluster', 'ports']).join('\n')).toMatch(
      /published: 8081\s+target: 80/,
    );
    // The plain stack's services are untouched by the profile.
    const plain = (await compose(['config'])).stdout;
    expect(mapping(block(plain, ['services', 'api', 'environment'])).get('REDIS_URL')).toBe(
      'redis://redis:6379',
    );
    expect(block(plain, ['services', 'api', 'networks'])).toEqual(['taco: null']);
  });

  it('passes REDIS_WAIT_REPLICAS to the cluster profile’s replicas', async () => {
    const { stdout } = await compose(['--profile', 'redis-cluster', 'config'], {
      REDIS_WAIT_REPLICAS: '1',
      TACO_CLUSTER_PORT: '9191',
    });
    expect(
      mapping(block(stdout, ['services', 'api-cluster', 'environment'])).get('REDIS_WAIT_REPLICAS'),
    ).toBe('1');
    expect(block(stdout, ['services', 'nginx-cluster', 'ports']).join('\n')).toMatch(
      /published: 9191\s+target: 80/,
    );
  });

  it('runs Prometheus and redis_exporter under the monitoring profile, on the plain stack’s network', async () => {
    const { stdout } = await compose(['--profile', 'monitoring', 'config']);
    for (const service of ['prometheus', 'redis-exporter']) {
      expect([service, block(stdout, ['services', service, 'profiles'])]).toEqual([
        service,
        ['- monitoring'],
      ]);
      expect([service, block(stdout, ['services', service, 'networks'])]).toEqual([
        service,
        ['taco: null'],
      ]);
    }
    // The repository's config and rules, read-only; the data in a volume of its own.
    const volumes = block(stdout, ['services', 'prometheus', 'volumes']).join('\n');
    expect(volumes).toContain(
      `${join(REPO_ROOT, 'infra', 'monitoring', 'prometheus.yml')}:/etc/prometheus/prometheus.yml:ro`,
    );
    expect(volumes).toContain(
      `${join(REPO_ROOT, 'infra', 'monitoring', 'rules')}:/etc/prometheus/rules:ro`,
    );
    expect(volumes).toMatch(/prometheus-data:\/prometheus/);
    expect(block(stdout, ['services', 'prometheus', 'command'])).toEqual([
      '- --config.file=/etc/prometheus/prometheus.yml',
      '- --storage.tsdb.path=/prometheus',
    ]);
    expect(
      mapping(block(stdout, ['services', 'redis-exporter', 'environment'])).get('REDIS_ADDR'),
    ).toBe('redis://redis:6379');
    expect(block(stdout, ['services', 'redis-exporter'])).not.toContain('ports:');
    // Published on the host's loopback only (Prometheus has no login), on PROMETHEUS_PORT.
    const published = (config: string) =>
      block(config, ['services', 'prometheus', 'ports']).join('\n');
    expect(published(stdout)).toMatch(
      /^- 127\.0\.0\.1:9090:9090(\/tcp)?$|host_ip: 127\.0\.0\.1[\s\S]*published: "?9090"?\s+target: 9090/,
    );
    const moved = (
      await compose(['--profile', 'monitoring', 'config'], { PROMETHEUS_PORT: '9393' })
    ).stdout;
    expect(published(moved)).toMatch(
      /^- 127\.0\.0\.1:9393:9090(\/tcp)?$|host_ip: 127\.0\.0\.1[\s\S]*published: "?9393"?\s+target: 9090/,
    );
  });

  it('lists the services', async () => {
    const { stdout } = await compose(['config', '--services']);
    expect(stdout.split('\n').filter(Boolean).sort()).toEqual(
      expect.arrayContaining(['api', 'nginx', 'redis']),
    );
  });
});
