import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@taco/harness';

export const COMPOSE_FILE = join(REPO_ROOT, 'docker-compose.yml');

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
  env?: NodeJS.ProcessEnv;
  /** Resolve with the exit code instead of throwing when the command fails. */
  allowFailure?: boolean;
}

/** Runs a command (no shell), bounded by `timeoutMs`; throws with its output when it fails. */
export function runCommand(
  command: string,
  args: string[],
  { timeoutMs = 60_000, env, allowFailure = false }: RunOptions = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: REPO_ROOT, env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 256 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (error && !allowFailure) {
          const timedOut = error.killed ? ` (killed after ${timeoutMs} ms)` : '';
          reject(
            new Error(
              `${command} ${args.join(' ')} failed${timedOut}: exit ${code}\n${stderr.slice(-4000)}\n${stdout.slice(-4000)}`,
            ),
          );
          return;
        }
        resolve({ stdout, stderr, code });
      },
    );
  });
}

/** `docker …` */
export function docker(args: string[], options?: RunOptions): Promise<RunResult> {
  return runCommand('docker', args, options);
}

/** Milliseconds as seconds with one decimal, for the figures. */
export const seconds = (ms: number) => Math.round(ms / 100) / 10;

/**
 * Removes a run's image tags (`taco-chat-api:<tag>`, `taco-chat-nginx:<tag>`); their layers stay
 * (--no-prune) as the build cache of the next run.
 */
export function removeImages(tag: string): Promise<RunResult> {
  return docker(['rmi', '--no-prune', `taco-chat-api:${tag}`, `taco-chat-nginx:${tag}`], {
    timeoutMs: 60_000,
    allowFailure: true,
  });
}

/**
 * The compose command: `TACO_COMPOSE` when set (e.g. `docker compose`), else Debian's
 * `docker-compose` 1.29 when it is on the PATH, else `docker compose` (v2).
 */
export function composeCommand(): string[] {
  const chosen = process.env.TACO_COMPOSE?.trim();
  if (chosen) return chosen.split(/\s+/);
  try {
    execFileSync('docker-compose', ['version'], { stdio: 'ignore', timeout: 15_000 });
    return ['docker-compose'];
  } catch {
    return ['docker', 'compose'];
  }
}

export interface ContainerState {
  id: string;
  name: string;
  status: string;
  /** `healthy`, `starting`, `unhealthy`, or '' for a container without a health check. */
  health: string;
  address: string;
}

/** What `containers` reads of `docker inspect`. */
interface Inspected {
  Id: string;
  Name: string;
  State: { Status: string; Health?: { Status: string } };
  NetworkSettings: { Networks?: Record<string, { IPAddress: string }> };
}

/** One compose project of the repository's docker-compose.yml. */
export class ComposeProject {
  readonly command = composeCommand();

  constructor(
    readonly project: string,
    /** Variables for compose (interpolated into the file); the caller's environment otherwise. */
    readonly variables: Record<string, string>,
  ) {}

  get env(): NodeJS.ProcessEnv {
    return { ...process.env, ...this.variables };
  }

  /** `<compose> -f docker-compose.yml -p <project> …args` */
  run(args: string[], options: RunOptions = {}): Promise<RunResult> {
    const [command = 'docker-compose', ...prefix] = this.command;
    return runCommand(command, [...prefix, '-f', COMPOSE_FILE, '-p', this.project, ...args], {
      ...options,
      env: { ...this.env, ...options.env },
    });
  }

  /** Container ids of a service (`ps -q`), running or not. */
  async ids(service: string): Promise<string[]> {
    const { stdout } = await this.run(['ps', '-q', service], { timeoutMs: 30_000 });
    return stdout.split('\n').filter((line) => line.trim().length > 0);
  }

  /** State of a service's containers, running ones first. */
  async containers(service: string): Promise<ContainerState[]> {
    const ids = await this.ids(service);
    if (ids.length === 0) return [];
    // Plain JSON, not a --format template: a template's `.State.Health` is an error (not empty)
    // for a container without a health check when the client reads the engine's JSON as a map.
    const { stdout } = await docker(['inspect', ...ids], {
      timeoutMs: 30_000,
      allowFailure: true,
    });
    let inspected: Inspected[] = [];
    try {
      inspected = JSON.parse(stdout) as Inspected[];
    } catch {
      return []; // a container removed meanwhile: `docker inspect` printed nothing usable
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
      }))
      .sort((a, b) => Number(b.status === 'running') - Number(a.status === 'running'));
  }

  /** Running containers of a service. */
  async running(service: string): Promise<ContainerState[]> {
    return (await this.containers(service)).filter((container) => container.status === 'running');
  }

  /** `logs --no-color <services…>` as text. */
  async logs(...services: string[]): Promise<string> {
    const { stdout, stderr } = await this.run(['logs', '--no-color', ...services], {
      timeoutMs: 60_000,
    });
    return stdout + stderr;
  }

  /** `logs --no-color --timestamps <services…>` written to `file`; never fails. */
  async saveLogs(file: string, ...services: string[]): Promise<void> {
    const logs = await this.run(['logs', '--no-color', '--timestamps', ...services], {
      timeoutMs: 60_000,
      allowFailure: true,
    }).catch((error: unknown) => ({ stdout: '', stderr: String(error) }));
    writeFileSync(file, logs.stdout + logs.stderr);
  }

  /**
   * Always: containers, networks and volumes go (`down -v --remove-orphans`, after `prefix`, e.g.
   * a `--profile`), whatever happened before; then this run's image tags (TACO_IMAGE_TAG is the
   * project name). Returns `down`'s exit code.
   */
  async tearDown(prefix: string[] = []): Promise<number> {
    const { code, stderr } = await this.run([...prefix, 'down', '-v', '--remove-orphans'], {
      timeoutMs: 180_000,
      allowFailure: true,
    });
    if (code !== 0) process.stderr.write(`compose down failed: ${stderr}\n`);
    await removeImages(this.project);
    return code;
  }
}

/** A compose project name no other run uses: `taco-ci-<pid>-<random>`. */
export function uniqueProjectName(prefix = 'taco-ci'): string {
  return `${prefix}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * The lines nested under `path` in YAML as `docker-compose config` (or `docker stack config`)
 * prints it (two-space indentation, one key per line), with their indentation removed.
 */
export function block(yaml: string, path: string[]): string[] {
  let lines = yaml.split('\n');
  for (const key of path) {
    const start = lines.findIndex((line) => line === `${key}:` || line.startsWith(`${key}: `));
    if (start === -1) throw new Error(`no ${path.join('.')} in:\n${yaml}`);
    const body: string[] = [];
    for (const line of lines.slice(start + 1)) {
      if (line.length > 0 && !line.startsWith(' ') && !line.startsWith('- ')) break;
      body.push(line);
    }
    // Nested keys are indented by two; a list under a key may start at the key's own column.
    lines = body.map((line) => (line.startsWith('  ') ? line.slice(2) : line));
  }
  return lines.filter((line) => line.trim().length > 0);
}

/** `KEY: value` lines of a block as a map, quotes removed. */
export function mapping(lines: string[]): Map<string, string> {
  const entries = lines
    .filter((line) => !line.startsWith(' '))
    .map((line) => /^([A-Za-z0-9_]+): ?(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match): [string, string] => [
      match[1] ?? '',
      (match[2] ?? '').replace(/^(['"])(.*)\1$/, '$2'),
    ]);
  return new Map(entries);
}
