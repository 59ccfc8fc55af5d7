/**
 * Helpers of the Swarm suite (`npm run test:swarm`): the swarm itself, and one stack of
 * `infra/swarm/stack.yml` deployed under a name of its own.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiPath } from '@taco/protocol';
import { httpStatus, REPO_ROOT, waitFor } from '@taco/harness';
import {
  artifacts,
  type Container,
  docker,
  dockerLines,
  inspect,
  type RunOptions,
  type RunResult,
  servicesReady,
  waitWatching,
} from '../../test/support/docker';

export const STACK_FILE = join(REPO_ROOT, 'infra', 'swarm', 'stack.yml');
export const REPLICAS = 3;
export const SCALED = 5;
export const ARTIFACTS = artifacts('swarm');

/** What `ensureSwarm` found and did, so that cleanup undoes exactly that. */
export interface SwarmSetup {
  /** This run created the swarm: only then may it leave it. */
  created: boolean;
  /** The bridge Swarm creates for its tasks' outside traffic, when this run made it appear. */
  createdGatewayBridge: boolean;
}

/** One value of `docker info` by Go template. */
async function info(template: string): Promise<string> {
  return (await docker(['info', '--format', template], { timeoutMs: 30_000 })).stdout.trim();
}

async function hasNetwork(name: string): Promise<boolean> {
  return (await dockerLines(['network', 'ls', '-q', '--filter', `name=^${name}$`])).length > 0;
}

/** Runs a cleanup command; when it fails, adds `<what>: <its stderr>` to `problems`. */
async function attempt(problems: string[], what: string, args: string[], timeoutMs = 30_000) {
  const { code, stderr } = await docker(args, { timeoutMs, allowFailure: true });
  if (code !== 0) problems.push(`${what}: ${stderr.trim()}`);
}

/**
 * Makes sure this engine is a swarm manager: uses an active swarm as it is, or creates one on
 * the loopback address.
 */
export async function ensureSwarm(): Promise<SwarmSetup> {
  const gatewayBridge = await hasNetwork('docker_gwbridge');
  // `Swarm.LocalNodeState`: `inactive`, `active`, `pending`, `error` or `locked`.
  const state = await info('{{.Swarm.LocalNodeState}}');
  if (state === 'active') {
    if ((await info('{{.Swarm.ControlAvailable}}')) !== 'true') {
      throw new Error('this engine is in a swarm but not a manager');
    }
    return { created: false, createdGatewayBridge: false };
  }
  if (state !== 'inactive') throw new Error(`the engine's swarm is ${state}; fix it first`);
  await docker(['swarm', 'init', '--advertise-addr', '127.0.0.1'], { timeoutMs: 60_000 });
  return { created: true, createdGatewayBridge: !gatewayBridge };
}

/** Leaves the swarm `ensureSwarm` created (never one it found), and what came with it. */
export async function undoSwarm(setup: SwarmSetup): Promise<string[]> {
  const problems: string[] = [];
  if (!setup.created) return problems;
  await attempt(problems, 'swarm leave', ['swarm', 'leave', '--force'], 120_000);
  if (setup.createdGatewayBridge && (await hasNetwork('docker_gwbridge'))) {
    await attempt(problems, 'network rm docker_gwbridge', ['network', 'rm', 'docker_gwbridge']);
  }
  return problems;
}

/** One task of a service as `docker service ps` tells it. */
export interface TaskState {
  id: string;
  /** `<stack>_<service>.<slot>` */
  name: string;
  desired: string;
  /** `Running 5 seconds ago`, `Failed 2 seconds ago`, … */
  current: string;
  error: string;
}

/** `docker service inspect`'s `UpdateStatus` (absent before the first update). */
export interface UpdateStatus {
  State?: string;
  StartedAt?: string;
  CompletedAt?: string;
  Message?: string;
}

/** One stack of `infra/swarm/stack.yml`. */
export class SwarmStack {
  constructor(
    readonly name: string,
    /** Variables interpolated into the stack file; the caller's environment otherwise. */
    readonly variables: Record<string, string>,
  ) {}

  /** The full service name: `<stack>_<service>`. */
  service(service: string): string {
    return `${this.name}_${service}`;
  }

  /** `docker stack deploy` of the images as they are on this engine (`--resolve-image never`). */
  deploy(): Promise<RunResult> {
    return docker(
      ['stack', 'deploy', '-c', STACK_FILE, '--resolve-image', 'never', '--prune', this.name],
      { timeoutMs: 120_000, env: { ...process.env, ...this.variables } },
    );
  }

  /** `docker service …` on one of this stack's services (full name appended last). */
  serviceCommand(args: string[], service: string, options: RunOptions = {}): Promise<RunResult> {
    return docker(['service', ...args, this.service(service)], { timeoutMs: 60_000, ...options });
  }

  /** Every task of a service, the current ones and the history Swarm keeps. */
  async tasks(service: string): Promise<TaskState[]> {
    const format = '{{.ID}}|{{.Name}}|{{.DesiredState}}|{{.CurrentState}}|{{.Error}}';
    const { stdout } = await this.serviceCommand(
      ['ps', '--no-trunc', '--format', format],
      service,
      { timeoutMs: 30_000 },
    );
    return stdout
      .split('\n')
      .filter((line) => line.includes('|'))
      .map((line) => {
        const [id = '', name = '', desired = '', current = '', error = ''] = line.split('|');
        return { id, name: name.replace(/^\\_\s*/, '').trim(), desired, current, error };
      });
  }

  /** The running containers of a service on this node, with their health and task. */
  async containers(service: string): Promise<Container[]> {
    const label = `label=com.docker.swarm.service.name=${this.service(service)}`;
    const ids = await dockerLines(['ps', '-q', '--no-trunc', '--filter', label]);
    return (await inspect(ids)).filter((container) => container.status === 'running');
  }

  /** The service's `UpdateStatus`. */
  async updateStatus(service: string): Promise<UpdateStatus> {
    const text = await this.inspect(service, '{{json .UpdateStatus}}');
    return text === '' || text === 'null' ? {} : (JSON.parse(text) as UpdateStatus);
  }

  /** One value of a service's spec, by Go template (e.g. `{{.Spec.Mode.Replicated.Replicas}}`). */
  async inspect(service: string, template: string): Promise<string> {
    const { stdout } = await this.serviceCommand(['inspect', '--format', template], service, {
      timeoutMs: 30_000,
    });
    return stdout.trim();
  }

  /**
   * Waits until the service runs exactly `replicas` healthy containers (or running ones, for a
   * service without a health check) and no other task of it is still meant to run.
   */
  async waitHealthy(service: string, replicas: number, timeoutMs: number): Promise<void> {
    await waitWatching(
      `${replicas} healthy ${service} task(s)`,
      async () => {
        const [containers, tasks] = await Promise.all([
          this.containers(service),
          this.tasks(service),
        ]);
        const running = tasks.filter((task) => task.desired === 'Running');
        const [ok, seen] = servicesReady(
          { [service]: containers },
          { [service]: replicas },
          (c) => c.health === 'healthy' || c.health === '',
        );
        const meant = running.map((t) => `${t.name}: ${t.current} ${t.error}`).join('; ');
        return [ok && running.length === replicas, `${seen} | ${meant}`];
      },
      { timeoutMs, intervalMs: 1000 },
    );
  }

  /** Waits until the service's UpdateStatus is one of `states`; returns it. */
  async waitUpdate(service: string, states: string[], timeoutMs: number): Promise<UpdateStatus> {
    let status: UpdateStatus = {};
    await waitWatching(
      `${service} update ${states.join(' or ')}`,
      async () => {
        status = await this.updateStatus(service);
        return [states.includes(status.State ?? ''), JSON.stringify(status)];
      },
      { timeoutMs, intervalMs: 1000 },
    );
    return status;
  }

  /** `docker service logs` of a service, with timestamps (from `since`, an ISO time, if given). */
  async logs(service: string, since?: string): Promise<string> {
    const { stdout, stderr } = await this.serviceCommand(
      ['logs', '--no-task-ids', '--timestamps', '--raw', ...(since ? ['--since', since] : [])],
      service,
      { timeoutMs: 60_000, allowFailure: true },
    );
    return stdout + stderr;
  }

  /** Each service's logs and tasks, written to `file`; never fails on a service. */
  async saveLogs(file: string, services = ['redis', 'api', 'nginx']): Promise<void> {
    const logs: string[] = [];
    for (const service of services) {
      logs.push(`===== ${service}\n${await this.logs(service).catch(String)}`);
      logs.push(
        `===== ${service} tasks\n${JSON.stringify(await this.tasks(service).catch(String), null, 1)}`,
      );
    }
    writeFileSync(file, logs.join('\n'));
  }

  /**
   * `docker stack rm`, then waits until its containers and network are gone (the command
   * returns before they are) and removes the Redis volume. Never throws: it runs in cleanup.
   */
  async remove(timeoutMs = 120_000): Promise<string[]> {
    const problems: string[] = [];
    await attempt(problems, 'stack rm', ['stack', 'rm', this.name], 60_000);
    const label = `label=com.docker.stack.namespace=${this.name}`;
    let left: string[] = [];
    await waitFor(
      `stack ${this.name} gone`,
      async () => {
        left = (
          await Promise.all([
            dockerLines(['ps', '-aq', '--filter', label]),
            dockerLines(['network', 'ls', '-q', '--filter', label]),
          ])
        ).flat();
        return left.length === 0;
      },
      { timeoutMs, intervalMs: 1000 },
    ).catch(() => problems.push(`still there after ${timeoutMs} ms: ${left.join(' ')}`));
    for (const volume of await dockerLines(['volume', 'ls', '-q', '--filter', label])) {
      await attempt(problems, `volume rm ${volume}`, ['volume', 'rm', volume]);
    }
    return problems;
  }
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
