/**
 * Helpers of the Swarm suite (stack.swarm-spec.ts): its settings, the files' configs, chat
 * traffic through nginx with what nginx's log shows meanwhile, and the checks every scenario
 * under traffic makes.
 */
import { ApiPath } from '@taco/protocol';
import { httpStatus, waitFor } from '@taco/harness';
import { artifacts, docker, dockerLines } from '../../test/support/docker';
import { chatThrough, type TrafficFigures, type TrafficOptions } from './chat-traffic';
import { STACK_FILE, type SwarmStack } from './swarm-stack';

export const REPLICAS = 3;
export const SCALED = 5;
/** No member may be without a working socket for longer than this (issue 27). */
export const MAX_GAP_MS = 10_000;
/** Share of readiness polls through nginx that must answer 200 during a rolling update. */
export const MIN_READY_PERCENT = 95;
export const TRAFFIC: Omit<TrafficOptions, 'prefix'> = {
  rooms: 3,
  membersPerRoom: 4,
  everyMs: 500,
  pollEveryMs: 200,
};
export const ARTIFACTS = artifacts('swarm');

/** A traffic run's figures, and how many requests nginx's access log shows meanwhile. */
export interface Observed extends TrafficFigures {
  /** `retried`: requests nginx sent to more than one replica (a failed try, then another). */
  nginx: { requests: number; retried: number };
}

/** The figures worth quoting, printed on one line (with each member's longest gap). */
export function summary(name: string, traffic: Observed): Record<string, unknown> {
  const { longestGapMs, readiness, missing, nginx, ...counts } = traffic;
  const line = {
    ...counts,
    readinessPercent: readiness.percent,
    readinessPolls: readiness.polls,
    nginxRequests: nginx.requests,
    nginxRetried: nginx.retried,
  };
  const notOk =
    readiness.notOk.length > 0 ? `  readiness not 200 at: ${readiness.notOk.join(' ')}\n` : '';
  process.stdout.write(
    `swarm ${name}: ${JSON.stringify(line)}\n  longest gap per member (ms): ${JSON.stringify(longestGapMs)}\n${notOk}`,
  );
  return { ...line, longestGapMs, readinessNotOk: readiness.notOk, missing };
}

/** What every scenario under traffic must show: nothing lost or doubled, nobody away for long. */
export function expectNothingLost(traffic: TrafficFigures): void {
  expect(traffic.acknowledged).toBeGreaterThan(0);
  expect(traffic.missing).toEqual([]);
  expect(traffic.lost).toBe(0);
  expect(traffic.duplicates).toBe(0);
  expect(traffic.longestGapMaxMs).toBeLessThan(MAX_GAP_MS);
}

/** `docker stack config -c infra/swarm/stack.yml` with only `env`. */
export function stackFileConfig(env: NodeJS.ProcessEnv) {
  return docker(['stack', 'config', '-c', STACK_FILE], { env, timeoutMs: 30_000 });
}

/** A /24 in 10.200–10.249 that no network of this engine uses. */
export async function freeSubnet(): Promise<string> {
  const ids = await dockerLines(['network', 'ls', '-q']);
  const format = '{{range .IPAM.Config}}{{.Subnet}} {{end}}';
  const { stdout } = await docker(['network', 'inspect', '--format', format, ...ids], {
    timeoutMs: 30_000,
  });
  const used = new Set(stdout.split(/\s+/).filter((subnet) => subnet.length > 0));
  for (let attempt = 0; attempt < 200; attempt++) {
    const subnet = `10.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 256)}.0/24`;
    if (!used.has(subnet)) return subnet;
  }
  throw new Error('no free subnet found');
}

/** `chatThrough` nginx, and what nginx's access log shows for the same time. */
export async function observeTraffic(
  swarm: SwarmStack,
  baseUrl: string,
  options: TrafficOptions,
  during: () => Promise<void>,
): Promise<Observed> {
  const since = new Date(Date.now() - 1000).toISOString();
  const traffic = await chatThrough(baseUrl, options, during);
  const lines = (await swarm.logs('nginx', since))
    .split('\n')
    .filter((line) => line.includes(' upstream_status='));
  // `upstream_status=504, 502 : 200`: a comma or colon after a status means another try.
  const retried = lines.filter((line) => /upstream_status=\S+(,| :)/.test(line));
  return { ...traffic, nginx: { requests: lines.length, retried: retried.length } };
}

/** Waits until redis, `replicas` api tasks and nginx are healthy, and nginx answers. */
export async function waitStack(
  swarm: SwarmStack,
  baseUrl: string,
  replicas: number,
  timeoutMs = 180_000,
): Promise<void> {
  await swarm.waitHealthy('redis', 1, timeoutMs);
  await swarm.waitHealthy('api', replicas, timeoutMs);
  await swarm.waitHealthy('nginx', 1, timeoutMs);
  await waitFor(
    'nginx answering, with a ready replica behind it',
    async () => (await httpStatus(`${baseUrl}${ApiPath.healthReady}`)) === 200,
    { timeoutMs: 60_000, intervalMs: 500 },
  );
}

/**
 * The api tasks as a monitoring system finds them: every address `tasks.api` resolves to on
 * the stack's network (seen from an api task), each asked for readiness and metrics.
 */
export async function targets(
  swarm: SwarmStack,
): Promise<{ address: string; ready: number; metrics: boolean }[]> {
  const [probe] = await swarm.containers('api');
  if (!probe) throw new Error('no api container to look from');
  const script = `
    const dns = require('node:dns/promises');
    (async () => {
      const found = await dns.lookup('tasks.api', { all: true, family: 4 });
      const answers = await Promise.all(found.map(async ({ address }) => {
        const get = (path) => fetch('http://' + address + ':3000' + path, { signal: AbortSignal.timeout(3000) })
          .then(async (r) => ({ status: r.status, text: await r.text() }), () => ({ status: 0, text: '' }));
        const ready = await get('${ApiPath.healthReady}');
        const metrics = await get('${ApiPath.metrics}');
        return { address, ready: ready.status, metrics: metrics.text.includes('taco_connections') };
      }));
      process.stdout.write(JSON.stringify(answers));
    })().catch((error) => { process.stderr.write(String(error)); process.exit(1); });`;
  const { stdout } = await docker(['exec', probe.id, 'node', '-e', script], {
    timeoutMs: 30_000,
  });
  return JSON.parse(stdout) as { address: string; ready: number; metrics: boolean }[];
}
