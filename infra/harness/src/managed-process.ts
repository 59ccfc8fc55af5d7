import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';

/** How a process ended. */
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
  output: OutputMode;
}

/** Lines kept per process, oldest dropped first. */
const MAX_LINES = 5000;

/**
 * One child process of the cluster: started from a spec, restartable with the same spec, its
 * output kept as lines (and printed as `[name] …` in stream mode).
 */
export class ManagedProcess {
  readonly lines: string[] = [];
  private child: ChildProcess | undefined;
  private exitPromise: Promise<Exit> = Promise.resolve({ code: null, signal: null });
  private running = false;

  constructor(private readonly spec: ProcessSpec) {}

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

  start(): void {
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
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) =>
        this.record(line),
      );
    }
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
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const first = await Promise.race([this.exitPromise, timedOut]);
    clearTimeout(timer);
    if (first !== 'timeout') return first;
    this.record(`still running ${graceMs} ms after ${signal}: SIGKILL`);
    this.kill('SIGKILL');
    return this.exitPromise;
  }

  /** Whether some line so far matches. */
  hasLine(pattern: RegExp): boolean {
    return this.lines.some((line) => pattern.test(line));
  }
}

/**
 * The full path of a system command: from PATH, or the sbin folders a non-root PATH often lacks
 * (Debian installs nginx as /usr/sbin/nginx). The bare name when it is nowhere, so spawning it
 * reports ENOENT naming the command.
 */
export function findExecutable(name: string): string {
  const folders = [
    ...(process.env.PATH ?? '').split(delimiter),
    '/usr/local/sbin',
    '/usr/sbin',
    '/sbin',
  ];
  for (const folder of folders) {
    if (folder.length > 0 && existsSync(join(folder, name))) return join(folder, name);
  }
  return name;
}

/**
 * Follows a log file a process writes (nginx's error log) and hands each new line to `onLine`,
 * polling every `intervalMs` until `stop()`.
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
    const size = statSync(path).size;
    if (size < offset) offset = 0;
    if (size === offset) return;
    const buffer = Buffer.alloc(size - offset);
    const fd = openSync(path, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, offset);
    } finally {
      closeSync(fd);
    }
    offset = size;
    const lines = (partial + buffer.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
  const timer = setInterval(poll, intervalMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      poll();
    },
  };
}
