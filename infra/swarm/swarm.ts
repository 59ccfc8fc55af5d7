/**
 * Helpers of the Swarm suite (`npm run test:swarm`): the swarm itself, and one stack of
 * `infra/swarm/stack.yml` deployed under a name of its own. Commands go through the compose
 * suite's `docker` runner (bounded, output kept for errors).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, sleep, waitFor } from '@taco/harness';
import { docker, type RunOptions, type RunResult } from '../compose/compose';

export const STACK_FILE = join(REPO_ROOT, 'infra', 'swarm', 'stack.yml');

/** `docker info`'s `Swarm.LocalNodeState`: `inactive`, `active`, `pending`, `error` or `locked`. */
export async function swarmState(): Promise<string> {
  const { stdout } = await docker(['info', '--format', '{{.Swarm.LocalNodeState}}'], {
    timeoutMs: 30_000,
  });
  return stdout.trim();
}

/** What `ensureSwarm` found and did, so that cleanup undoes exactly that. */
export interface SwarmSetup {
  /** This run created the swarm: only then may it leave it. */
  created: boolean;
  /** The bridge Swarm creates for its tasks' outside traffic, when this run made it appear. */
  createdGatewayBridge: boolean;
}

async function hasNetwork(name: string): Promise<boolean> {
  const { stdout } = await docker(['network', 'ls', '-q', '--filter', `name=^${name}$`], {
    timeoutMs: 30_000,
  });
  return stdout.trim().length > 0;
}

/**
 * Makes sure this engine is a swarm manager: uses an active swarm as it is, or creates one on
 * the loopback address.
 */
export async function ensureSwarm(): Promise<SwarmSetup> {
  const gatewayBridge = await hasNetwork('docker_gwbridge');
  const created = await joinOrCreate();
  return { created, createdGatewayBridge: created && !gatewayBridge };
}

/** Leaves the swarm `ensureSwarm` created (never one it found), and what came with it. */
export async function undoSwarm(setup: SwarmSetup): Promise<string[]> {
  const problems: string[] = [];
  if (!setup.created) return problems;
  const left = await docker(['swarm', 'leave', '--force'], {
    timeoutMs: 120_000,
    allowFailure: true,
  });
  if (left.code !== 0) problems.push(`swarm leave: ${left.stderr.trim()}`);
  if (setup.createdGatewayBridge && (await hasNetwork('docker_gwbridge'))) {
    const removed = await docker(['network', 'rm', 'docker_gwbridge'], {
      timeoutMs: 30_000,
      allowFailure: true,
    });
    if (removed.code !== 0) problems.push(`network rm docker_gwbridge: ${removed.stderr.trim()}`);
  }
  return problems;
}

async function joinOrCreate(): Promise<boolean> {
  const state = await swarmState();
  if (state === 'active') {
    const { stdout } = await docker(['info', '--format', '{{.Swarm.ControlAvailable}}'], {
      timeoutMs: 30_000,
    });
    if (stdout.trim() !== 'true') throw new Error('this engine is in a swarm but not a manager');
    return false;
  }
  if (state !== 'inactive') throw new Error(`the engine's swarm is ${state}; fix it first`);
  await docker(['swarm', 'init', '--advertise-addr', '127.0.0.1'], { timeoutMs: 60_000 });
  return true;
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

/** One running container of a service, with its health and the task it belongs to. */
export interface TaskContainer {
  id: string;
  taskId: string;
  status: string;
  /** `healthy`, `starting`, `unhealthy`, or '' for a container without a health check. */
  health: string;
  /** When the container was created (ISO time). */
  created: string;
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

  get env(): NodeJS.ProcessEnv {
    return { ...process.env, ...this.variables };
  }

  /** The full service name: `<stack>_<service>`. */
  service(service: string): string {
    return `${this.name}_${service}`;
  }

  /** `docker stack deploy` of the images as they are on this engine (`--resolve-image never`). */
  deploy(options: RunOptions = {}): Promise<RunResult> {
    return docker(
      ['stack', 'deploy', '-c', STACK_FILE, '--resolve-image', 'never', '--prune', this.name],
      { timeoutMs: 120_000, ...options, env: { ...this.env, ...options.env } },
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

  /** The running containers of a service on this node, with their health. */
  async containers(service: string): Promise<TaskContainer[]> {
    const { stdout: ids } = await docker(
      [
        'ps',
        '-q',
        '--no-trunc',
        '--filter',
        `label=com.docker.swarm.service.name=${this.service(service)}`,
      ],
      { timeoutMs: 30_000 },
    );
    const list = ids.split('\n').filter((id) => id.trim().length > 0);
    if (list.length === 0) return [];
    const format =
      '{{.Id}}|{{index .Config.Labels "com.docker.swarm.task.id"}}|{{.State.Status}}|' +
      '{{if .State.Health}}{{.State.Health.Status}}{{end}}|{{.Created}}';
    const { stdout } = await docker(['inspect', '--format', format, ...list], {
      timeoutMs: 30_000,
      allowFailure: true,
    });
    return stdout
      .split('\n')
      .filter((line) => line.includes('|'))
      .map((line) => {
        const [id = '', taskId = '', status = '', health = '', created = ''] = line.split('|');
        return { id, taskId, status, health, created };
      })
      .filter((container) => container.status === 'running');
  }

  async updateStatus(service: string): Promise<UpdateStatus> {
    const { stdout } = await this.serviceCommand(
      ['inspect', '--format', '{{json .UpdateStatus}}'],
      service,
      { timeoutMs: 30_000 },
    );
    const text = stdout.trim();
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
    let seen = '';
    await waitFor(
      `${replicas} healthy ${service} task(s)`,
      async () => {
        const [containers, tasks] = await Promise.all([
          this.containers(service),
          this.tasks(service),
        ]);
        const running = tasks.filter((task) => task.desired === 'Running');
        seen =
          containers.map((c) => `${c.taskId.slice(0, 6)}=${c.health || c.status}`).join(' ') +
          ` | ${running.map((t) => `${t.name}: ${t.current} ${t.error}`).join('; ')}`;
        return (
          containers.length === replicas &&
          running.length === replicas &&
          containers.every((c) => c.health === 'healthy' || c.health === '')
        );
      },
      { timeoutMs, intervalMs: 1000 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nlast seen: ${seen}`);
    });
  }

  /** Waits until the service's UpdateStatus is one of `states`; returns it. */
  async waitUpdate(service: string, states: string[], timeoutMs: number): Promise<UpdateStatus> {
    let status: UpdateStatus = {};
    await waitFor(
      `${service} update ${states.join(' or ')}`,
      async () => {
        status = await this.updateStatus(service);
        return states.includes(status.State ?? '');
      },
      { timeoutMs, intervalMs: 1000 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}: last ${JSON.stringify(status)}`);
    });
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
    const removed = await docker(['stack', 'rm', this.name], {
      timeoutMs: 60_000,
      allowFailure: true,
    });
    if (removed.code !== 0) problems.push(`stack rm: ${removed.stderr.trim()}`);
    const label = `label=com.docker.stack.namespace=${this.name}`;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [containers, networks] = await Promise.all([
        docker(['ps', '-aq', '--filter', label], { timeoutMs: 30_000, allowFailure: true }),
        docker(['network', 'ls', '-q', '--filter', label], {
          timeoutMs: 30_000,
          allowFailure: true,
        }),
      ]);
      if (containers.stdout.trim() === '' && networks.stdout.trim() === '') break;
      if (Date.now() > deadline) {
        problems.push(`still there after ${timeoutMs} ms: ${containers.stdout} ${networks.stdout}`);
        break;
      }
      await sleep(1000);
    }
    const volumes = await docker(['volume', 'ls', '-q', '--filter', label], {
      timeoutMs: 30_000,
      allowFailure: true,
    });
    for (const volume of volumes.stdout.split('\n').filter((v) => v.trim().length > 0)) {
      const gone = await docker(['volume', 'rm', volume], {
        timeoutMs: 30_000,
        allowFailure: true,
      });
      if (gone.code !== 0) problems.push(`volume rm ${volume}: ${gone.stderr.trim()}`);
    }
    return problems;
  }
}
