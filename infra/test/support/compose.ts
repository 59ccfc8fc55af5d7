/**
 * The repository's docker-compose.yml as the Docker suites drive it: one project of it, and its
 * configuration as `config` prints it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, type WaitOptions } from '@taco/harness';
import {
  type Container,
  docker,
  inspect,
  removeImages,
  runCommand,
  type RunOptions,
  type RunResult,
  servicesReady,
  waitWatching,
} from './docker';

export const COMPOSE_FILE = join(REPO_ROOT, 'docker-compose.yml');

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

/** `<compose> -f docker-compose.yml …args` */
function compose(args: string[], options?: RunOptions): Promise<RunResult> {
  const [command = 'docker-compose', ...prefix] = composeCommand();
  return runCommand(command, [...prefix, '-f', COMPOSE_FILE, ...args], options);
}

/** `<compose> -f docker-compose.yml config` with only `env` (docker-compose 1.29 or v2). */
export function composeFileConfig(env: NodeJS.ProcessEnv): Promise<RunResult> {
  return compose(['config'], { env, timeoutMs: 30_000 });
}

/** What `waitHealthy` takes besides the counts. */
export interface HealthyOptions extends WaitOptions {
  /** When a running container counts (default: when it is healthy). */
  ready?: (container: Container, service: string) => boolean;
}

/** One compose project of the repository's docker-compose.yml. */
export class ComposeProject {
  readonly command = composeCommand();

  constructor(
    readonly project: string,
    /** Variables for compose (interpolated into the file); the caller's environment otherwise. */
    readonly variables: Record<string, string>,
  ) {}

  /** `<compose> -f docker-compose.yml -p <project> …args` */
  run(args: string[], options: RunOptions = {}): Promise<RunResult> {
    return compose(['-p', this.project, ...args], {
      ...options,
      env: { ...process.env, ...this.variables, ...options.env },
    });
  }

  /** Container ids of a service (`ps -q`), running or not. */
  async ids(service: string): Promise<string[]> {
    const { stdout } = await this.run(['ps', '-q', service], { timeoutMs: 30_000 });
    return stdout.split('\n').filter((line) => line.trim().length > 0);
  }

  /** Running containers of a service. */
  async running(service: string): Promise<Container[]> {
    const containers = await inspect(await this.ids(service));
    return containers.filter((container) => container.status === 'running');
  }

  /**
   * Waits until each service of `expected` runs exactly its count of containers, each one ready;
   * returns each change of their states seen meanwhile. A failed wait names the health checks'
   * last answers.
   */
  async waitHealthy(
    expected: Record<string, number>,
    { ready, ...options }: HealthyOptions,
  ): Promise<string[]> {
    const services = Object.keys(expected);
    const what = services.map((service) => `${expected[service]} ${service}`).join(', ');
    return waitWatching(
      `${what}, all healthy`,
      async () => {
        const states = await Promise.all(services.map((service) => this.running(service)));
        const byService = Object.fromEntries(services.map((s, i) => [s, states[i] ?? []]));
        return servicesReady(byService, expected, ready);
      },
      options,
    ).catch(async (error: unknown) => {
      const ids = (await Promise.all(services.map((service) => this.ids(service)))).flat();
      const format = '{{.Name}} {{if .State.Health}}{{json .State.Health.Log}}{{end}}';
      const probes = await docker(['inspect', '--format', format, ...ids], { allowFailure: true });
      throw new Error(`${String(error)}\nhealth checks:\n${probes.stdout}`);
    });
  }

  /** `logs --no-color <services…>` as text. */
  async logs(...services: string[]): Promise<string> {
    const { stdout, stderr } = await this.run(['logs', '--no-color', ...services]);
    return stdout + stderr;
  }

  /** `logs --no-color --timestamps <services…>` written to `file`; never fails. */
  async saveLogs(file: string, ...services: string[]): Promise<void> {
    const logs = await this.run(['logs', '--no-color', '--timestamps', ...services], {
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
