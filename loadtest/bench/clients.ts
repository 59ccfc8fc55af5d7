/** The load-client processes of one workload run, and typed request/response over their IPC. */
import { type ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';
import type { ClientMessage, ParentMessage } from './ipc';

const CLIENT_SCRIPT = resolve(__dirname, 'load-client.ts');
const REPLY_TIMEOUT_MS = 120_000;

type Reply<T extends ClientMessage['type']> = Extract<ClientMessage, { type: T }>;

interface Waiter {
  type: ClientMessage['type'];
  resolve: (message: ClientMessage) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

class LoadClient {
  private readonly child: ChildProcess;
  private readonly waiters: Waiter[] = [];
  private exited = false;
  /** Settles when the process has loaded and listens. */
  readonly ready: Promise<unknown>;

  constructor(readonly index: number) {
    this.child = fork(CLIENT_SCRIPT, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = this.wait('ready', 30_000);
    this.child.on('message', (message: ClientMessage) => {
      const at = this.waiters.findIndex((waiter) => waiter.type === message.type);
      const waiter = this.waiters[at];
      if (!waiter) return;
      this.waiters.splice(at, 1);
      clearTimeout(waiter.timer);
      waiter.resolve(message);
    });
    this.child.once('exit', (code) => {
      this.exited = true;
      for (const waiter of this.waiters.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error(`load client ${index} exited (code ${code})`));
      }
    });
  }

  /** The next message of type `answer`, or an error after `timeoutMs` or when the process exits. */
  private wait<T extends ClientMessage['type']>(answer: T, timeoutMs: number): Promise<Reply<T>> {
    return new Promise<Reply<T>>((resolve, reject) => {
      if (this.exited) {
        reject(new Error(`load client ${this.index} is not running`));
        return;
      }
      const timer = setTimeout(() => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new Error(`load client ${this.index}: no ${answer} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        type: answer,
        resolve: (reply) => resolve(reply as Reply<T>),
        reject,
        timer,
      };
      this.waiters.push(waiter);
    });
  }

  request<T extends ClientMessage['type']>(message: ParentMessage, answer: T): Promise<Reply<T>> {
    const reply = this.wait(answer, REPLY_TIMEOUT_MS);
    if (!this.exited) this.child.send(message);
    return reply;
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    try {
      await this.request({ type: 'close' }, 'closed');
    } catch {
      // Already gone.
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  }
}

/** The load-client processes of one run, answering the same requests. */
export class ClientPool {
  readonly clients: LoadClient[];

  constructor(count: number) {
    this.clients = Array.from({ length: count }, (_, index) => new LoadClient(index));
  }

  /** Resolves once every client process is up. */
  async ready(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.ready));
  }

  /** Sends one message per client (built from its index) and waits for every answer. */
  all<T extends ClientMessage['type']>(
    build: (index: number) => ParentMessage,
    answer: T,
  ): Promise<Reply<T>[]> {
    return Promise.all(this.clients.map((client) => client.request(build(client.index), answer)));
  }

  close(): Promise<void[]> {
    return Promise.all(this.clients.map((client) => client.close()));
  }
}
