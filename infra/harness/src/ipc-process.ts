/** A child process running a TypeScript script (through tsx), typed request/response over IPC. */
import { type ChildProcess, fork } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { setPriority } from 'node:os';
import pLimit from 'p-limit';

interface Typed {
  type: string;
}

/** What every child says: it is ready, how its connects went, it has closed. */
export type ChildLifecycle =
  | { type: 'ready' }
  | { type: 'connected'; ok: number; failed: number; firstError: string | null }
  | { type: 'closed' };

/**
 * The child answers each request with a message of a named type; it says `{type:'ready'}` once
 * it listens and answers `{type:'close'}` with `{type:'closed'}`.
 */
export class IpcProcess<Out extends Typed, In extends Typed> {
  private readonly child: ChildProcess;
  /** Emits each message from the child under its type, and `error` once the child exited. */
  private readonly messages = new EventEmitter();
  private exited = false;
  /** Settles when the process has loaded and listens. */
  readonly ready: Promise<unknown>;

  constructor(
    script: string,
    readonly label: string,
    private readonly replyTimeoutMs = 120_000,
  ) {
    this.child = fork(script, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = this.wait('ready', 30_000);
    this.child.on('message', (message: In) => this.messages.emit(message.type, message));
    this.child.once('exit', (code) => {
      this.exited = true;
      if (this.messages.listenerCount('error') > 0) {
        this.messages.emit('error', new Error(`${label} exited (code ${code})`));
      }
    });
  }

  private async wait<T extends In['type']>(type: T, timeoutMs = this.replyTimeoutMs) {
    if (this.exited) throw new Error(`${this.label} is not running`);
    const signal = AbortSignal.timeout(timeoutMs);
    const answer = once(this.messages, type, { signal }) as Promise<[Extract<In, { type: T }>]>;
    const [message] = await answer.catch((error: Error) => {
      throw signal.aborted ? new Error(`${this.label}: no ${type} within ${timeoutMs} ms`) : error;
    });
    return message;
  }

  tell(message: Out): void {
    this.child.send(message);
  }

  /** Sends `message` and resolves with the child's next message of type `answer`. */
  request<T extends In['type']>(message: Out, answer: T): Promise<Extract<In, { type: T }>> {
    const reply = this.wait(answer);
    if (!this.exited) this.child.send(message);
    return reply;
  }

  /** Sets the process's nice value; false when the system refused it. */
  prioritize(nice: number): boolean {
    try {
      if (this.child.pid === undefined) return false;
      setPriority(this.child.pid, nice);
      return true;
    } catch {
      return false;
    }
  }

  /** Asks the child to close, and kills it if it has not exited 3 s later. */
  async close(): Promise<void> {
    if (this.exited) return;
    const exited = once(this.child, 'exit');
    await this.request({ type: 'close' } as Out, 'closed').catch(() => undefined);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await exited.finally(() => clearTimeout(timer));
  }
}

/** One handler per type of message the parent sends. */
export type Handlers<M extends Typed> = {
  [T in M['type']]: (message: Extract<M, { type: T }>) => void;
};

/**
 * The child's side: hands each message from the parent to the handler of its type, exits when
 * the parent goes away (never lingering with sockets open), and says it is ready.
 */
export function serveParent<M extends Typed>(handlers: Handlers<M>): void {
  process.on('message', (message: M) => {
    (handlers[message.type as M['type']] as (message: M) => void)(message);
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ type: 'ready' });
}

/** `count` children of one script answering the same requests (load clients, member processes). */
export class IpcPool<Out extends Typed, In extends Typed> {
  readonly children: IpcProcess<Out, In>[];

  constructor(script: string, label: string, count: number, replyTimeoutMs?: number) {
    this.children = Array.from(
      { length: count },
      (_, index) => new IpcProcess<Out, In>(script, `${label} ${index}`, replyTimeoutMs),
    );
  }

  async ready(): Promise<void> {
    await Promise.all(this.children.map((child) => child.ready));
  }

  /** Sends one message per child (built from its index) and waits for every answer. */
  all<T extends In['type']>(
    build: (index: number) => Out,
    answer: T,
  ): Promise<Extract<In, { type: T }>[]> {
    return Promise.all(this.children.map((child, index) => child.request(build(index), answer)));
  }

  async close(): Promise<void> {
    await Promise.all(this.children.map((child) => child.close()));
  }
}

/**
 * Opens every item with `open`, `concurrency` at a time: what opened, in the items' order, and
 * the tally a child reports as `connected`.
 */
export async function openAll<T, R>(
  items: readonly T[],
  concurrency: number,
  open: (item: T) => Promise<R>,
): Promise<{ opened: R[]; tally: Extract<ChildLifecycle, { type: 'connected' }> }> {
  const limit = pLimit(Math.max(1, concurrency));
  const settled = await Promise.allSettled(items.map((item) => limit(() => open(item))));
  const opened = settled.flatMap((each) => (each.status === 'fulfilled' ? [each.value] : []));
  const failures = settled.filter((each) => each.status === 'rejected');
  const [firstError = null] = failures.map(({ reason }: { reason: unknown }) =>
    reason instanceof Error ? reason.message : String(reason),
  );
  const failed = failures.length;
  return { opened, tally: { type: 'connected', ok: opened.length, failed, firstError } };
}
