/**
 * The k6 load generator (`--driver k6`): one `k6 run` of bench/k6-load-client.js whose VUs each
 * play one Node load-client process. The benchmark talks to them through a small HTTP control
 * server on 127.0.0.1 (each VU long-polls `GET /next?client=i` for its next request and posts
 * its answers to `POST /reply?client=i`), with the same request and answer messages as the IPC of
 * the Node clients, so every workload, step and figure runs unchanged on either generator.
 *
 * k6 is one process for all VUs: its CPU is read from /proc and shared out evenly among the VUs,
 * so "client CPU" is the k6 process's cores ÷ VUs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { baseEnvironment, findExecutable, ManagedProcess, REPO_ROOT } from '@taco/harness';
import type { LoadPool, Reply } from './clients';
import { BUCKETS, GROWTH, MIN_MS } from './histogram';
import type { ClientMessage, ParentMessage } from './ipc';
import { cpuSeconds } from './proc-stats';

const SCRIPT = resolve(__dirname, 'k6-load-client.js');
/** How long a VU's poll is held open when there is nothing for it (the script waits longer). */
const POLL_HOLD_MS = 20_000;
const START_TIMEOUT_MS = 60_000;
const REPLY_TIMEOUT_MS = 120_000;
/** The largest answer a VU posts (a stats histogram is a few KiB). */
const MAX_BODY_BYTES = 1 << 20;

/** The k6 binary, or a clear error saying how to get one. */
export function k6Executable(): string {
  const k6 = findExecutable('k6');
  if (k6 === 'k6') {
    throw new Error(
      'k6 is not installed: run ../shared/tools/k6/install.sh (k6 ≥ 1.6 on the PATH)',
    );
  }
  return k6;
}

interface Waiter {
  type: ClientMessage['type'];
  resolve: (message: ClientMessage) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

interface Slot {
  queue: ParentMessage[];
  poll: { res: ServerResponse; timer: NodeJS.Timeout } | null;
  waiters: Waiter[];
}

export class K6Pool implements LoadPool {
  private readonly slots: Slot[];
  private server: Server | null = null;
  private k6: ManagedProcess | null = null;
  /** The k6 process's CPU seconds when the current step was sent. */
  private cpuAtStep = 0;
  private failure: Error | null = null;

  constructor(private readonly count: number) {
    this.slots = Array.from({ length: count }, () => ({ queue: [], poll: null, waiters: [] }));
  }

  async ready(): Promise<void> {
    const k6 = k6Executable();
    this.server = createServer((req, res) => this.handle(req, res));
    const server = this.server;
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const readies = this.slots.map((_, index) => this.expect(index, 'ready', START_TIMEOUT_MS));
    this.k6 = new ManagedProcess({
      name: 'k6',
      command: k6,
      args: [
        'run',
        '--quiet',
        '--no-summary',
        '--no-usage-report',
        '-e',
        `CONTROL=http://127.0.0.1:${port}`,
        '-e',
        `CLIENTS=${this.count}`,
        '-e',
        `HIST_MIN_MS=${MIN_MS}`,
        '-e',
        `HIST_GROWTH=${GROWTH}`,
        '-e',
        `HIST_BUCKETS=${BUCKETS}`,
        SCRIPT,
      ],
      cwd: REPO_ROOT,
      env: baseEnvironment(),
      output: 'quiet',
    });
    this.k6.start();
    void this.k6.exited.then((exit) => {
      this.fail(
        new Error(
          `k6 exited (${exit.signal ?? `code ${exit.code}`}):\n${this.k6?.lines.slice(-20).join('\n') ?? ''}`,
        ),
      );
    });
    await Promise.all(readies);
  }

  all<T extends ClientMessage['type']>(
    build: (index: number) => ParentMessage,
    answer: T,
  ): Promise<Reply<T>[]> {
    if (this.failure) return Promise.reject(this.failure);
    const messages = this.slots.map((_, index) => build(index));
    if (messages.some((message) => message.type === 'step')) this.cpuAtStep = this.k6Cpu();
    return Promise.all(
      messages.map(async (message, index) => {
        const reply = this.expect(index, answer, REPLY_TIMEOUT_MS);
        this.push(index, message);
        return (await reply) as Reply<T>;
      }),
    );
  }

  async close(): Promise<void> {
    if (!this.failure && this.k6?.isRunning) {
      try {
        await this.all(() => ({ type: 'close' }), 'closed');
      } catch {
        // k6 is gone already; stopping it below is all that is left.
      }
    }
    this.failure ??= new Error('the k6 load generator was closed');
    await this.k6?.stop('SIGTERM', 5000);
    for (const slot of this.slots) {
      if (slot.poll) {
        clearTimeout(slot.poll.timer);
        slot.poll.res.writeHead(204).end();
        slot.poll = null;
      }
    }
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
  }

  private k6Cpu(): number {
    const pid = this.k6?.pid;
    return pid === undefined ? 0 : cpuSeconds(pid);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const slot of this.slots) {
      for (const waiter of slot.waiters.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.reject(error);
      }
    }
  }

  private expect(index: number, type: ClientMessage['type'], timeoutMs: number) {
    return new Promise<ClientMessage>((resolve, reject) => {
      const slot = this.slots[index] as Slot;
      const waiter: Waiter = {
        type,
        resolve,
        reject,
        timer: setTimeout(() => {
          const at = slot.waiters.indexOf(waiter);
          if (at >= 0) slot.waiters.splice(at, 1);
          reject(new Error(`k6 VU ${index + 1}: no ${type} within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      slot.waiters.push(waiter);
    });
  }

  private push(index: number, message: ParentMessage): void {
    const slot = this.slots[index] as Slot;
    slot.queue.push(message);
    this.flush(slot);
  }

  /** Hands the next queued request to the VU's waiting poll, if both are there. */
  private flush(slot: Slot): void {
    const poll = slot.poll;
    const next = slot.queue[0];
    if (!poll || !next) return;
    slot.queue.shift();
    slot.poll = null;
    clearTimeout(poll.timer);
    poll.res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(next));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const index = Number(url.searchParams.get('client'));
    const slot = Number.isInteger(index) ? this.slots[index] : undefined;
    if (!slot) {
      res.writeHead(400).end('unknown client');
      return;
    }
    if (req.method === 'GET' && url.pathname === '/next') {
      if (slot.poll) {
        // A VU polls once at a time; a new poll replaces one its client already gave up on.
        clearTimeout(slot.poll.timer);
        slot.poll.res.writeHead(204).end();
      }
      const timer = setTimeout(() => {
        if (slot.poll?.res === res) slot.poll = null;
        res.writeHead(204).end();
      }, POLL_HOLD_MS);
      slot.poll = { res, timer };
      this.flush(slot);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/reply') {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      req.on('end', () => {
        let message: ClientMessage;
        try {
          message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ClientMessage;
        } catch {
          res.writeHead(400).end('not JSON');
          return;
        }
        res.writeHead(204).end();
        this.receive(slot, message);
      });
      return;
    }
    res.writeHead(404).end();
  }

  private receive(slot: Slot, message: ClientMessage): void {
    if (message.type === 'sent' || message.type === 'stats') {
      // k6 is one process for every VU: each VU is charged an even share of its CPU.
      message.cpuSeconds = (this.k6Cpu() - this.cpuAtStep) / this.count;
    }
    const at = slot.waiters.findIndex((waiter) => waiter.type === message.type);
    const waiter = slot.waiters[at];
    if (!waiter) return;
    slot.waiters.splice(at, 1);
    clearTimeout(waiter.timer);
    waiter.resolve(message);
  }
}
