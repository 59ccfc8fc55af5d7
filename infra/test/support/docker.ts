/**
 * What the Docker suites (`npm run test:compose`, `npm run test:swarm`) share: bounded commands,
 * containers as `docker inspect` tells them, waits that say what they saw, and the figures they
 * keep for CI.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import execa from 'execa';
import { REPO_ROOT, waitFor, type WaitOptions } from '@taco/harness';

/**
 * A stack's settings for a test process, which is one client address: every per-IP and
 * per-connection limit raised.
 */
export const TEST_CLIENT_LIMITS = {
  CREDENTIALS_PER_MINUTE: '100000',
  CONNECTIONS_PER_IP: '100000',
  MESSAGE_BURST: '1000',
  MESSAGES_PER_SECOND: '1000',
  TYPING_PER_SECOND: '1000',
  HISTORY_REQUESTS_PER_10S: '1000',
};

export interface RunResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface RunOptions {
  timeoutMs?: number;
  /** The command's whole environment (the caller's when not given). */
  env?: NodeJS.ProcessEnv;
  /** Resolve with the exit code instead of throwing when the command fails. */
  allowFailure?: boolean;
}

/** Runs a command (no shell), SIGKILLed after `timeoutMs`; throws with its output when it fails. */
export async function runCommand(
  command: string,
  args: string[],
  { timeoutMs = 60_000, env = process.env, allowFailure = false }: RunOptions = {},
): Promise<RunResult> {
  const result = await execa(command, args, {
    cwd: REPO_ROOT,
    env,
    extendEnv: false,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 256 << 20,
    reject: false,
    stripFinalNewline: false,
  });
  const { stdout, stderr } = result;
  const code = result.failed ? result.exitCode || -1 : 0;
  if (result.failed && !allowFailure) {
    const timedOut = result.timedOut ? ` (killed after ${timeoutMs} ms)` : '';
    throw new Error(
      `${command} ${args.join(' ')} failed${timedOut}: exit ${code}\n${stderr.slice(-4000)}\n${stdout.slice(-4000)}`,
    );
  }
  return { stdout, stderr, code };
}

/** `docker …` */
export function docker(args: string[], options?: RunOptions): Promise<RunResult> {
  return runCommand('docker', args, options);
}

/** The non-empty lines a `docker …` printed (within 30 s), trimmed; none when it failed. */
export async function dockerLines(args: string[]): Promise<string[]> {
  const { stdout } = await docker(args, { timeoutMs: 30_000, allowFailure: true });
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

/** Milliseconds as seconds with one decimal, for the figures. */
export const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** A compose project or stack name no other run uses: `<prefix>-<pid>-<random>`. */
export function uniqueProjectName(prefix = 'taco-ci'): string {
  return `${prefix}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * Removes a run's image tags (`taco-chat-api:<tag>`, `taco-chat-nginx:<tag>`); their layers stay
 * (--no-prune) as the build cache of the next run.
 */
export function removeImages(tag: string): Promise<RunResult> {
  return docker(['rmi', '--no-prune', `taco-chat-api:${tag}`, `taco-chat-nginx:${tag}`], {
    allowFailure: true,
  });
}

/** One container as `docker inspect` tells it. */
export interface Container {
  id: string;
  name: string;
  status: string;
  /** `healthy`, `starting`, `unhealthy`, or '' for a container without a health check. */
  health: string;
  /** Its address on its network ('' when it has none). */
  address: string;
  /** The Swarm task it runs ('' outside a swarm). */
  taskId: string;
}

/** What `inspect` reads of `docker inspect`. */
interface Inspected {
  Id: string;
  Name: string;
  Config: { Labels?: Record<string, string> | null };
  State: { Status: string; Health?: { Status: string } };
  NetworkSettings: { Networks?: Record<string, { IPAddress: string }> };
}

/** The containers of `ids` that still exist, running ones first. */
export async function inspect(ids: string[]): Promise<Container[]> {
  if (ids.length === 0) return [];
  // Plain JSON, not a --format template: a template's `.State.Health` is an error (not empty)
  // for a container without a health check when the client reads the engine's JSON as a map.
  const { stdout } = await docker(['inspect', ...ids], { timeoutMs: 30_000, allowFailure: true });
  let inspected: Inspected[] = [];
  try {
    inspected = JSON.parse(stdout) as Inspected[];
  } catch {
    return []; // every container removed meanwhile: `docker inspect` printed nothing usable
  }
  return inspected
    .map((container) => ({
      id: container.Id,
      name: container.Name.replace(/^\//, ''),
      status: container.State.Status,
      health: container.State.Health?.Status ?? '',
      address: Object.values(container.NetworkSettings.Networks ?? {})
        .map((network) => network.IPAddress)
        .join(''),
      taskId: container.Config.Labels?.['com.docker.swarm.task.id'] ?? '',
    }))
    .sort((a, b) => Number(b.status === 'running') - Number(a.status === 'running'));
}

/**
 * Whether each service of `expected` runs exactly its count of containers, each of them healthy
 * (or ready by `ready`); with the states seen, as one line.
 */
export function servicesReady(
  states: Record<string, Container[]>,
  expected: Record<string, number>,
  ready: (container: Container, service: string) => boolean = (c) => c.health === 'healthy',
): [boolean, string] {
  const seen = Object.entries(states)
    .map(([service, list]) => {
      // A container without an address has lost its network (`docker swarm leave` on the same
      // engine detaches the containers of compose networks).
      const each = list.map((c) => `${c.health || c.status}@${c.address || 'no network'}`);
      return `${service}: ${each.join(',')}`;
    })
    .join('; ');
  const ok = Object.entries(expected).every(
    ([service, count]) =>
      states[service]?.length === count && states[service].every((c) => ready(c, service)),
  );
  return [ok, seen];
}

/**
 * `waitFor` on a check that also says what it saw: each change of that, with the second it was
 * seen, is returned, and is in the error when the wait runs out.
 */
export async function waitWatching(
  what: string,
  look: () => Promise<[boolean, string]>,
  options: WaitOptions,
): Promise<string[]> {
  const startedAt = Date.now();
  const changes: string[] = [];
  let last: string | undefined;
  await waitFor(
    what,
    async () => {
      const [ok, seen] = await look();
      if (seen !== last) changes.push(`${seconds(Date.now() - startedAt)}s ${seen}`);
      last = seen;
      return ok;
    },
    options,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${changes.join('\n')}`);
  });
  return changes;
}

/** Where a suite keeps its figures, logs and summaries for CI (artifacts/ is ignored by git). */
export function artifacts(suite: string): string {
  const dir = join(REPO_ROOT, 'artifacts', suite);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes a scenario's figures to `file` and prints them on one line. */
export function keepFigures(file: string, label: string, figures: Record<string, unknown>): void {
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(`${label} scenario figures: ${JSON.stringify(figures)}\n`);
}
