import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, unwatchFile, watchFile } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { waitFor, type WaitOptions } from './wait';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Where a child's output goes: printed with a prefix (the CLI) or only kept (tests). */
export type OutputMode = 'stream' | 'quiet';

export interface ProcessSpec {
  name: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Default `quiet`. */
  output?: OutputMode;
}

/** Lines kept per process, oldest dropped first. */
const MAX_LINES = 5000;

/**
 * One child process of the cluster: started from a spec, restartable with the same spec, its
 * output kept as lines (and printed as `[name] …` in stream mode). `start()` resolves once it is
 * spawned.
 */
export class ManagedProcess {
  readonly lines: string[] = [];
  private child: ChildProcess | undefined;
  private exitPromise: Promise<Exit> = Promise.resolve({ code: null, signal: null });
  private running = false;

  constructor(protected readonly spec: ProcessSpec) {}

  get name(): string {
    return this.spec.name;
  }

  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Settles when the current run of the process ends. */
  get exited(): Promise<Exit> {
    return this.exitPromise;
  }

  start(): Promise<void> {
    if (this.running) throw new Error(`${this.spec.name} is already running`);
    const child = spawn(this.spec.command, [...this.spec.args], {
      cwd: this.spec.cwd,
      env: this.spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: Ctrl-C reaches only the runner, which stops the children in order
      // (nginx, replicas, Redis last) instead of all of them at once.
      detached: true,
    });
    this.child = child;
    this.running = true;
    this.exitPromise = new Promise<Exit>((resolve) => {
      child.once('error', (error) => {
        this.record(`failed to start: ${error.message}`);
        this.running = false;
        resolve({ code: null, signal: null });
      });
      child.once('exit', (code, signal) => {
        this.running = false;
        resolve({ code, signal });
      });
    });
    for (const input of [child.stdout, child.stderr]) {
      if (input) createInterface({ input, crlfDelay: Infinity }).on('line', (l) => this.record(l));
    }
    return Promise.resolve();
  }

  /** Adds a line as if the process had printed it (output it writes to a file, not a pipe). */
  record(line: string): void {
    this.lines.push(line);
    if (this.lines.length > MAX_LINES) this.lines.splice(0, this.lines.length - MAX_LINES);
    if (this.spec.output === 'stream') process.stdout.write(`[${this.spec.name}] ${line}\n`);
  }

  /** Sends a signal to the current run; does nothing if it is not running. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.running) this.child?.kill(signal);
  }

  /** Sends `signal`, waits up to `graceMs`, then SIGKILL; resolves once the process is gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<Exit> {
    if (!this.running) return this.exitPromise;
    this.kill(signal);
    const timer = setTimeout(() => {
      this.record(`still running ${graceMs} ms after ${signal}: SIGKILL`);
      this.kill('SIGKILL');
    }, graceMs);
    return this.exitPromise.finally(() => clearTimeout(timer));
  }

  /** `waitFor`, given up at once (with the last lines) if the process exits meanwhile. */
  waitUntil(what: string, check: () => Promise<boolean> | boolean, options: WaitOptions = {}) {
    const abort = () => (this.running ? undefined : `exited:\n${this.lines.slice(-20).join('\n')}`);
    return waitFor(what, check, { ...options, abort });
  }
}

/** What a `Service` adds to its process: where it serves, and when it is ready. */
export interface ServiceSpec extends ProcessSpec {
  port: number;
  url: string;
  ready: () => Promise<boolean>;
  /** Bound on the wait until it is ready (default 30 s). */
  startTimeoutMs?: number;
}

/**
 * A process serving on a loopback port (a replica, a Redis): `start` starts it (again, on the same
 * port and folder) and resolves once it is ready.
 */
export class Service extends ManagedProcess {
  readonly port: number;
  readonly url: string;
  /** The replica's id (`api-2`), the name its lines are prefixed with. */
  readonly id: string;
  /** Its working folder (a Redis keeps its AOF or nodes.conf there). */
  readonly dir: string;

  constructor(protected override readonly spec: ServiceSpec) {
    super(spec);
    ({ port: this.port, url: this.url, name: this.id, cwd: this.dir } = spec);
  }

  override async start(): Promise<void> {
    await super.start();
    await this.waitUntil(`${this.name} ready on port ${this.port}`, this.spec.ready, {
      timeoutMs: this.spec.startTimeoutMs,
    });
  }

  /** Stops it if it runs, starts it again, and waits until it is ready. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}

/**
 * The full path of a system command: from PATH, or the sbin folders a non-root PATH often lacks
 * (Debian installs nginx as /usr/sbin/nginx). The bare name when it is nowhere, so spawning it
 * reports ENOENT naming the command.
 */
export function findExecutable(name: string): string {
  const sbin = ['/usr/local/sbin', '/usr/sbin', '/sbin'];
  const folders = [...(process.env.PATH ?? '').split(delimiter), ...sbin];
  const found = folders.find((dir) => dir !== '' && existsSync(join(dir, name)));
  return found === undefined ? name : join(found, name);
}

/** Throws unless every command is installed, naming the Debian package (default: its own name). */
export function requireExecutables(names: readonly string[], debianPackage?: string): void {
  const missing = names.find((name) => findExecutable(name) === name);
  if (missing === undefined) return;
  throw new Error(
    `${missing} is not installed (Debian: apt-get install ${debianPackage ?? missing})`,
  );
}

/**
 * Follows a log file a process writes (nginx's error log) and hands each new line to `onLine`,
 * looking every `intervalMs` until `stop()`.
 */
export function followFile(
  path: string,
  onLine: (line: string) => void,
  intervalMs = 250,
): { stop: () => void } {
  let offset = 0;
  let partial = '';
  const poll = () => {
    if (!existsSync(path)) return;
    const data = readFileSync(path);
    if (data.length < offset) offset = 0;
    const lines = (partial + data.subarray(offset).toString('utf8')).split('\n');
    offset = data.length;
    partial = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
  poll();
  watchFile(path, { interval: intervalMs, persistent: false }, poll);
  return {
    stop: () => {
      unwatchFile(path, poll);
      poll();
    },
  };
}
